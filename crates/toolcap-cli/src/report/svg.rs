//! Inline SVG bar charts (no script, no external resource).

use super::text::{esc, n};

/// Vertical bars, one per label, oldest first (chars saved per day).
pub fn columns(title: &str, bars: &[(String, u64)]) -> String {
    let max = bars.iter().map(|b| b.1).max().unwrap_or(0).max(1);
    let (w, h, top, bottom) = (960usize, 260usize, 24usize, 56usize);
    let step = (w - 20) / bars.len().max(1);
    let bar = step.saturating_sub(6).clamp(4, 60);
    let mut out = format!(
        "<svg role=\"img\" aria-label=\"{}\" viewBox=\"0 0 {w} {h}\" width=\"100%\" class=\"chart\">",
        esc(title)
    );
    out.push_str(&format!(
        "<line x1=\"10\" y1=\"{y}\" x2=\"{x}\" y2=\"{y}\" class=\"axis\"/>",
        y = h - bottom,
        x = w - 10
    ));
    for (i, (label, v)) in bars.iter().enumerate() {
        let bh = ((h - top - bottom) as u128 * u128::from(*v) / u128::from(max)) as usize;
        let x = 10 + i * step + (step - bar) / 2;
        let y = h - bottom - bh;
        out.push_str(&format!(
            "<rect x=\"{x}\" y=\"{y}\" width=\"{bar}\" height=\"{bh}\" class=\"bar\"><title>{}: {} chars saved</title></rect>",
            esc(label),
            n(*v)
        ));
        if bars.len() <= 31 {
            out.push_str(&format!(
                "<text x=\"{cx}\" y=\"{ty}\" class=\"val\" text-anchor=\"middle\">{}</text>",
                short(*v),
                cx = x + bar / 2,
                ty = y.saturating_sub(4).max(12)
            ));
            out.push_str(&format!(
                "<text x=\"{cx}\" y=\"{ly}\" class=\"lab\" text-anchor=\"end\" transform=\"rotate(-40 {cx} {ly})\">{}</text>",
                esc(label.get(5..).unwrap_or(label)),
                cx = x + bar / 2,
                ly = h - bottom + 14
            ));
        }
    }
    out.push_str("</svg>");
    out
}

/// Horizontal bars, one row per label (chars saved per tool).
pub fn rows(title: &str, bars: &[(String, u64)]) -> String {
    let max = bars.iter().map(|b| b.1).max().unwrap_or(0).max(1);
    let (w, row, left) = (960usize, 28usize, 220usize);
    let h = row * bars.len().max(1) + 10;
    let span = w - left - 120;
    let mut out = format!(
        "<svg role=\"img\" aria-label=\"{}\" viewBox=\"0 0 {w} {h}\" width=\"100%\" class=\"chart\">",
        esc(title)
    );
    for (i, (label, v)) in bars.iter().enumerate() {
        let y = 5 + i * row;
        let bw = ((span as u128 * u128::from(*v)) / u128::from(max)) as usize;
        let shown: String = label.chars().take(28).collect();
        out.push_str(&format!(
            "<text x=\"{lx}\" y=\"{ty}\" class=\"lab\" text-anchor=\"end\">{}</text>\
             <rect x=\"{left}\" y=\"{y}\" width=\"{bw}\" height=\"{bh}\" class=\"bar\"><title>{}: {} chars saved</title></rect>\
             <text x=\"{vx}\" y=\"{ty}\" class=\"val\">{}</text>",
            esc(&shown),
            esc(label),
            n(*v),
            n(*v),
            lx = left - 8,
            ty = y + row / 2 + 4,
            bh = row - 8,
            vx = left + bw + 6
        ));
    }
    out.push_str("</svg>");
    out
}

/// `1.2M`, `35k`, `812`: a bar's label.
fn short(v: u64) -> String {
    match v {
        0..=999 => v.to_string(),
        1_000..=999_999 => format!("{}k", (v + 500) / 1_000),
        _ => format!("{:.1}M", v as f64 / 1e6),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_are_proportional_and_labels_escaped() {
        let s = rows("t", &[("<a>".into(), 100), ("b".into(), 50)]);
        assert!(s.contains("&lt;a&gt;"));
        assert!(s.contains("width=\"620\""), "{s}");
        assert!(s.contains("width=\"310\""), "{s}");
        assert_eq!(short(1_234_567), "1.2M");
        assert_eq!(short(35_400), "35k");
    }
}
