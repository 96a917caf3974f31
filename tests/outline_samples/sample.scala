package a

object Main extends App {
  def main(args: Array[String]): Unit = { def local() = 1; () }
  val x = 1
}

trait T { def f(): Int; type X }
abstract class C(a: Int) extends T { def f() = 1 }
case class P(x: Int)
enum Color { case Red; def g = 1 }
given Ordering[Int] = ???
def top(): Unit = ()
type Alias = Int
