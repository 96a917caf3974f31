// The reference outline of Scala 2 files from scalac's own parser
// (scala.tools.nsc, the compiler's parser phase only: no typing, nothing
// synthesized by later phases). One JSON line per file:
//   {"file": F, "error": E?, "symbols": [{"kind","name","line","end_line"}]}
// It applies the outline's rule (docs/outlines.md): definitions at package
// level and inside classes, traits, objects and package objects, at any
// depth of those; nothing inside a def's body, a val's or var's initializer,
// or an anonymous class (`new T { ... }`). Kinds: class and object -> class,
// trait -> trait, def -> method directly inside a class, trait or object,
// else function; `type` -> type; `package object p` and `package p { ... }`
// -> module. The line is the line of the definition's name.
import scala.tools.nsc.{Global, Settings}
import scala.tools.nsc.reporters.StoreReporter
import scala.reflect.internal.util.BatchSourceFile
import scala.reflect.io.AbstractFile

object ScalaRef {
  def esc(s: String): String = s.flatMap {
    case '"' => "\\\""
    case '\\' => "\\\\"
    case c if c < ' ' => f"\\u${c.toInt}%04x"
    case c => c.toString
  }

  def main(args: Array[String]): Unit = {
    val settings = new Settings()
    settings.usejavacp.value = true
    settings.Yrangepos.value = true
    val reporter = new StoreReporter
    val g = new Global(settings, reporter)
    new g.Run
    import g._
    for (f <- args) {
      reporter.reset()
      val src = new BatchSourceFile(AbstractFile.getFile(f))
      val text = src.content
      val out = new StringBuilder
      def line(off: Int) = src.offsetToLine(off) + 1
      def emit(kind: String, name: String, t: Tree): Unit = {
        val p = t.pos
        if (!p.isDefined) return
        val endLine = if (p.isRange) line(math.max(p.end - 1, p.point)) else line(p.point)
        if (out.nonEmpty) out.append(",")
        out.append("{\"kind\":\"" + kind + "\",\"name\":\"" + esc(name) + "\",\"line\":" +
          line(p.point) + ",\"end_line\":" + endLine + "}")
      }
      def braced(pid: Tree): Boolean = {
        var i = if (pid.pos.isRange) pid.pos.end else -1
        if (i < 0) return false
        while (i < text.length && text(i).isWhitespace) i += 1
        i < text.length && text(i) == '{'
      }
      // `container`: the kind of the definition whose body this is
      // ("class", "trait", "module" or "" at file level).
      def walk(t: Tree, container: String): Unit = t match {
        case PackageDef(pid, stats) =>
          stats.foreach {
            case m @ ModuleDef(_, n, impl) if n.toString == "package" =>
              emit("module", pid.toString.split('.').last, m)
              impl.body.foreach(walk(_, "module"))
            case s => ()
          }
          val inner = stats.filter {
            case ModuleDef(_, n, _) if n.toString == "package" => false
            case _ => true
          }
          if (braced(pid)) {
            emit("module", pid.toString.split('.').last, t)
            inner.foreach(walk(_, "module"))
          } else inner.foreach(walk(_, container))
        case c @ ClassDef(mods, name, _, impl) =>
          val k = if (mods.isTrait) "trait" else "class"
          emit(k, name.decode, c)
          impl.body.foreach(walk(_, k))
        case m @ ModuleDef(_, name, impl) =>
          emit("class", name.decode, m)
          impl.body.foreach(walk(_, "class"))
        case d @ DefDef(mods, name, _, _, _, _) =>
          val n = name.decode
          if (n == "<init>") {
            // A secondary constructor `def this(...)`; the primary one the
            // parser adds has no name in the source.
            val p = d.pos.point
            if (d.pos.isRange && text.slice(p, p + 4).mkString == "this") emit("method", "this", d)
          } else if (n != "$init$" && !mods.isSynthetic) // `$init$`: a trait's initializer, added by the parser
            emit(if (container == "class" || container == "trait") "method" else "function", n, d)
        case td @ TypeDef(mods, name, _, _) if !mods.isParameter =>
          emit("type", name.decode, td)
        case Block(stats, expr) => (stats :+ expr).foreach(walk(_, container))
        case If(_, a, b) => walk(a, container); walk(b, container)
        case Try(b, cases, fin) => walk(b, container); cases.foreach(c => walk(c.body, container)); walk(fin, container)
        case _ => ()
      }
      val tree = try Right(newUnitParser(new CompilationUnit(src)).parse()) catch {
        case e: Throwable => Left(e.toString)
      }
      tree.right.foreach(walk(_, ""))
      val errs = reporter.infos.filter(_.severity == reporter.ERROR).toList
      val err = (tree.left.toOption ++ errs.headOption.map(i => s"line ${i.pos.line}: ${i.msg}")).headOption
      println("{\"file\":\"" + esc(f) + "\"" + err.map(e => ",\"error\":\"" + esc(e) + "\"").getOrElse("") +
        ",\"symbols\":[" + out + "]}")
    }
  }
}
