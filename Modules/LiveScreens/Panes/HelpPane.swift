import Terminal

// MARK: - HelpPane

/// Every key, from `KeyBindings`: what `?` shows over the current place.
struct HelpPane {
    func draw(into frame: inout Frame, rows area: Range<Int>) {
        guard let first = area.first else { return }
        frame.write("Keys", row: first, column: 2, style: .bold)
        for (index, binding) in KeyBindings.all.enumerated() {
            let row = first + 2 + index
            guard row < area.upperBound else { break }
            frame.write(FittedText.fit(binding.keys, 16), row: row, column: 2, style: .bold)
            frame.write(binding.action, row: row, column: 20)
        }
        let closing = first + 3 + KeyBindings.all.count
        if closing < area.upperBound { frame.write("Any key closes this.", row: closing, column: 2, style: .dim) }
    }
}
