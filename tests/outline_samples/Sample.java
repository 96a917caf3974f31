package a;

@Deprecated
public class A<T> extends B {
    private int x;

    @Override
    public String toString() {
        class Local {}
        Runnable r = new Runnable() { public void run() {} };
        return "";
    }

    public A() {}

    static class Inner {
        void m() {}
    }

    interface I { void f(); default void g() {} }

    enum E {
        X { void over() {} },
        Y;
        void em() {}
    }

    record R(int a) {
        R { }
        int twice() { return a * 2; }
    }
}

@interface Ann { String value() default ""; }
