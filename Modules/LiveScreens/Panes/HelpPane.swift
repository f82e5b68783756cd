import Terminal

// MARK: - HelpPane

/// Every key, from `KeyBindings`: what `?` shows over the current place.
struct HelpPane {
    func draw(into frame: inout Frame, rows area: Range<Int>) {
        guard let first = area.first else { return }
        frame.write("Keys", row: first, column: 2, style: .bold)
        frame.write("any key closes this", row: first, column: 8, style: .dim)
        // NB: one row per binding from the row under the title: 80 × 24 shows them all.
        for (index, binding) in KeyBindings.all.enumerated() {
            let row = first + 1 + index
            guard row < area.upperBound else { break }
            frame.write(FittedText.fit(binding.keys, 17), row: row, column: 2, style: .bold)
            frame.write(FittedText.fit(binding.action, max(1, frame.columns - 21)), row: row, column: 20)
        }
    }
}
