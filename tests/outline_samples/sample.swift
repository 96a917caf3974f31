import Foundation

protocol Shape { func area() -> Double }

@available(iOS 13, *)
public class Circle: Shape {
    init(r: Double) {}
    deinit {}
    func area() -> Double { func local() {}; return 1 }
    subscript(i: Int) -> Int { 0 }
}

struct Point { var x: Int; static func zero() -> Point { Point(x: 0) } }
enum Dir { case up; func flip() {} }
extension Point: Equatable { func dist() {} }
typealias Pair = (Int, Int)
func top() {}
let closure = { () in }
