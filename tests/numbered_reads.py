#!/usr/bin/env python3
"""Print lines of a real file the way one read tool prints them.

    python3 tests/numbered_reads.py FORM FILE [FIRST [LAST]]

The shell forms (`cat -n`, `nl`, `nl -ba`, `sed -n`...) are run for real by
tests/numbered_reads.rs; the agents' own read tools, which only run inside the
agents, are reproduced here from their source, line for line (FIRST, LAST:
1-based, inclusive; the agent's offset / view_range):

claude        Claude Code's Read, @anthropic-ai/claude-code 2.1.328 (the native
              binary's bundle, functions `RUt` and `D_r`): `${n}\t${line}` per
              line from `startLine`, lines joined with "\n" (a file indented
              with tabs gets `:` instead of the tab; not these files).
claude-arrow  Claude Code's Read before 2.1: the number right-aligned in 6,
              then "→" (the same bundle still strips it: `bal`,
              /^\s*\d+[\u2192\t:](.*)$/).
swe-open      SWE-agent's windowed viewer (`open F N`, `goto`, `scroll_down`),
              tools/windowed/lib/windowed_file.py `get_window_text` with
              line_numbers, status_line and pre_post_line: `[File: {path}
              ({n_lines} lines total)]`, `({start} more lines above)`,
              `{i}:{line}`, `({k} more lines below)`.
swe-view      SWE-agent's str_replace_editor `view` (tools/edit_anthropic/bin/
              str_replace_editor, `view` and `_make_output`): "Here's the
              result of running `cat -n` on {path}:\n", `"{:6}\t{}"` per line
              of `file_content.split("\n")` (tabs expanded), a final "\n".
opencode      opencode's read, opencode 1.18.33 (packages/opencode/src/tool/
              read.ts; the same text is in the opencode-linux-x64 binary):
              `<path>`, `<type>file</type>`, `<content>`, `${n}: ${line}`,
              a status line, `</content>`; 2000 lines or 50 KB at most.
copilot       Copilot CLI's `view` (@github/copilot 1.0.102): `${n}. ${line}`,
              as github/copilot-sdk issue 73 shows it (`9.  // example`,
              `10. // example`).
gemini        Gemini CLI's read_file when it truncates, @google/gemini-cli
              0.61.0 (bundle/chunk-5FZXKDXH.js, the `isTruncated` branch): a
              status header, `--- FILE CONTENT (truncated) ---`, then the
              lines unnumbered.
pi            Pi's read, @mariozechner/pi-coding-agent 0.73.1 (dist/core/
              tools/read.js, lines 207-251): the lines from `offset`
              unnumbered, then `[N more lines in file. Use offset=M to
              continue.]` when a limit stopped it.
"""

import sys


def main():
    form, path = sys.argv[1], sys.argv[2]
    first = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    text = open(path, encoding="utf-8").read()
    lines = text.split("\n")
    # a file ending in a newline has no line after it (what readline reads)
    file_lines = lines[:-1] if lines and lines[-1] == "" else lines
    last = int(sys.argv[4]) if len(sys.argv) > 4 else len(file_lines)
    shown = file_lines[first - 1 : last]
    out = sys.stdout
    if form == "claude":
        out.write("\n".join(f"{first + i}\t{l}" for i, l in enumerate(shown)))
    elif form == "claude-arrow":
        out.write("\n".join(f"{first + i:>6}\u2192{l}" for i, l in enumerate(shown)))
    elif form == "swe-open":
        n_lines = len(text.splitlines())
        start, end = first - 1, last - 1
        rows = [f"[File: {path} ({n_lines} lines total)]"]
        if start > 0:
            rows.append(f"({start} more lines above)")
        rows.extend(f"{i + start + 1}:{l}" for i, l in enumerate(lines[start : end + 1]))
        if end < n_lines - 1:
            rows.append(f"({n_lines - end - 1} more lines below)")
        out.write("\n".join(rows) + "\n")
    elif form == "swe-view":
        content = "\n".join(lines[first - 1 : last]) if len(sys.argv) > 4 else text
        content = content.expandtabs()
        body = "\n".join(f"{i + first:6}\t{l}" for i, l in enumerate(content.split("\n")))
        out.write(f"Here's the result of running `cat -n` on {path}:\n" + body + "\n")
    elif form == "opencode":
        limit = last + 1 - first
        raw, size, cut = [], 0, False
        for l in file_lines[first - 1 :]:
            if len(raw) >= limit:
                break
            add = len(l.encode()) + (1 if raw else 0)
            if size + add > 50 * 1024:
                cut = True
                break
            raw.append(l)
            size += add
        end = first + len(raw) - 1
        o = "\n".join([f"<path>{path}</path>", "<type>file</type>", "<content>\n"])
        o += "\n".join(f"{i + first}: {l}" for i, l in enumerate(raw))
        if cut:
            o += f"\n\n(Output capped at 50 KB. Showing lines {first}-{end}. Use offset={end + 1} to continue.)"
        elif end < len(file_lines):
            o += f"\n\n(Showing lines {first}-{end} of {len(file_lines)}. Use offset={end + 1} to continue.)"
        else:
            o += f"\n\n(End of file - total {len(file_lines)} lines)"
        out.write(o + "\n</content>")
    elif form == "copilot":
        out.write("\n".join(f"{first + i}. {l}" for i, l in enumerate(shown)))
    elif form == "gemini":
        out.write(
            "\nIMPORTANT: The file content has been truncated.\n"
            f"Status: Showing lines {first}-{last} of {len(file_lines)} total lines.\n"
            "Action: To read more of the file, you can use the 'start_line' and 'end_line' "
            "parameters in a subsequent 'read_file' call. For example, to read the next "
            f"section of the file, use start_line: {last + 1}.\n\n"
            "--- FILE CONTENT (truncated) ---\n" + "\n".join(shown)
        )
    elif form == "pi":
        o = "\n".join(shown)
        if last < len(lines):
            o += f"\n\n[{len(lines) - last} more lines in file. Use offset={last + 1} to continue.]"
        out.write(o)
    else:
        sys.exit(f"unknown form {form}")


main()
