// A small module for the code-map checker's own tests. `Sprocket` is named only in
// this comment, so a document that names it names code that is gone.

public struct Widget: Spinning {
    public var colour: String

    public init(colour: String) {
        self.colour = colour
    }

    public func spin(_ turns: Int, speed: Double = 1) -> Double {
        Double(turns) * speed
    }
}

public protocol Spinning {}

extension Spinning {
    public func wobble() {}
}
