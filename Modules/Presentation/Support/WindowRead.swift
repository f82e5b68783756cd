import Domain

// MARK: - ShownWindow

/// The window a list shows, as an anchor for the next one: where it starts among the
/// matches, how many rows it holds, and the positions of its first and last rows.
struct ShownWindow: Equatable {
    var offset: Int
    var count: Int
    var first: ListPosition
    var last: ListPosition
    /// Whether more matches follow its last row.
    var hasMore: Bool
}

// MARK: - WindowRead

/// How to read the `rows` matches from an offset with the fewest rows stepped over: an
/// `OFFSET` steps through every match before the window, which is what made a window
/// deep in 100,000 books slow. So a window near the one shown seeks from that window's
/// first or last row, one in the back half of a known count reads the order backward
/// from its end, and only a jump with neither starts from the top.
///
/// Each way skips `skip` rows after its starting place; the plan is the one whose skip is
/// smallest (the top on a tie: it depends on nothing that may have moved).
struct WindowRead: Equatable {
    var anchor: ListAnchor?
    /// Read the order backward: from its end, or from a `.before` anchor.
    var reversed: Bool
    /// Rows stepped over between the starting place and the window.
    var skip: Int
    var limit: Int

    /// The plan for the `rows` matches from `offset`.
    /// - Parameters:
    ///   - shown: the window on screen, when it was read for the same search.
    ///   - total: how many match, when counted for the same search.
    static func plan(offset: Int, rows: Int, shown: ShownWindow?, total: Int?) -> WindowRead {
        var best = WindowRead(anchor: nil, reversed: false, skip: offset, limit: rows)
        var candidates: [WindowRead] = []
        if let shown, shown.count > 0, let near = nearby(offset: offset, rows: rows, shown: shown) {
            candidates.append(near)
        }
        if let total, offset < total {
            let end = min(offset + rows, total)
            candidates.append(WindowRead(anchor: nil, reversed: true, skip: total - end, limit: end - offset))
        }
        for candidate in candidates where candidate.skip < best.skip {
            best = candidate
        }
        return best
    }

    /// A seek from the shown window's first or last row: after the last for a window
    /// below it, from the first for one that overlaps its start, backward from the
    /// first or through the last for one above; nil for a window above that reaches
    /// past the shown one's end (a taller screen), which no anchor covers.
    private static func nearby(offset: Int, rows: Int, shown: ShownWindow) -> WindowRead? {
        let end = shown.offset + shown.count
        if offset >= end {
            return WindowRead(anchor: ListAnchor(.after, shown.last), reversed: false, skip: offset - end, limit: rows)
        }
        if offset >= shown.offset {
            return WindowRead(
                anchor: ListAnchor(.after, shown.first, inclusive: true), reversed: false, skip: offset - shown.offset, limit: rows)
        }
        if offset + rows <= shown.offset {
            return WindowRead(
                anchor: ListAnchor(.before, shown.first), reversed: true, skip: shown.offset - (offset + rows), limit: rows)
        }
        if offset + rows <= end {
            return WindowRead(
                anchor: ListAnchor(.before, shown.last, inclusive: true), reversed: true, skip: end - (offset + rows), limit: rows)
        }
        return nil
    }

    /// Whether matches follow the window this plan read, given what the read said: a
    /// forward read probed one row past its limit; a backward one stopped short of what
    /// it skipped, and of its anchor row when it left it out.
    func hasMore(after page: BookSearchPage, shown: ShownWindow?) -> Bool {
        guard reversed else { return page.hasMore }
        guard let anchor else { return skip > 0 }
        return skip > 0 || !anchor.inclusive || (shown?.hasMore ?? true)
    }
}
