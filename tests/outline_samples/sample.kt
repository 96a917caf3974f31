package a

object Singleton { fun s() {} }

@Suppress("x")
class Foo<T>(val x: Int) : Bar() {
    companion object {
        const val K = 1
        fun make() = Foo<Int>(1)
    }
    fun m(): Int {
        fun local() {}
        return 1
    }
    val lam = { y: Int -> y }
    inner class In
}

interface I {
    fun f()
}

enum class E {
    A, B;

    fun e() {}
}

data class D(val a: Int)
typealias TA = List<Int>
fun top() = 1
fun String.ext(): Int = length
