using System;

namespace App.Core
{
    public interface IShape { double Area(); }

    [Serializable]
    public class Circle : IShape
    {
        public Circle(double r) { R = r; }
        ~Circle() {}
        public double R { get; set; }
        public double Area() => Math.PI * R * R;
        public static Circle operator +(Circle a, Circle b) => a;
        private class Nested { void N() { void Local() {} } }
        public event EventHandler Changed;
    }

    public struct Point { public int X; public override string ToString() => ""; }
    public enum Kind { A, B }
    public record Person(string Name);
    public record struct Pair(int A, int B);
    public delegate void Notify(string m);
}
