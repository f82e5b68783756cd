import Domain
import Sync
import Testing

private func book(_ title: String, _ author: String = "A", finished: Bool = false, modified: Int = 1) -> [String: JSONValue] {
    ["id": .string("b1"), "title": .string(title), "author_name": .string(author),
     "finished": .bool(finished), "last_modified": .number(Double(modified))]
}

@Suite("Three-way merge")
struct ThreeWayMergeTests {
    let base = book("Dune", "Frank Herbert")

    @Test func disjointFieldChangesMergeUnderEveryPolicy() {
        let local = book("Dune Messiah", "Frank Herbert")
        let remote = book("Dune", "Frank Herbert", finished: true, modified: 9)
        for policy in ConflictPolicy.allCases {
            let outcome = ThreeWayMerge.merge(base: base, local: local, remote: remote, policy: policy)
            #expect(outcome == .push(["title": .string("Dune Messiah"),
                                       "author_name": .string("Frank Herbert"), "finished": .bool(true)]))
        }
    }

    @Test func sameFieldChangedBothWaysFollowsThePolicy() {
        let local = book("Dune (local)", "Frank Herbert")
        let remote = book("Dune (remote)", "Frank Herbert", modified: 9)
        #expect(ThreeWayMerge.merge(base: base, local: local, remote: remote, policy: .manual)
            == .conflict(MergeConflict(kind: .fields, fields: ["title"])))
        #expect(ThreeWayMerge.merge(base: base, local: local, remote: remote, policy: .serverWins) == .acceptRemote)
        #expect(ThreeWayMerge.merge(base: base, local: local, remote: remote, policy: .clientWins)
            == .push(["title": .string("Dune (local)"), "author_name": .string("Frank Herbert"), "finished": .bool(false)]))
    }

    @Test func serverWinsKeepsTheLocalChangeToOtherFields() {
        let local = book("Dune (local)", "F. Herbert")
        let remote = book("Dune (remote)", "Frank Herbert", modified: 9)
        let outcome = ThreeWayMerge.merge(base: base, local: local, remote: remote, policy: .serverWins)
        #expect(outcome == .push(["title": .string("Dune (remote)"), "author_name": .string("F. Herbert"), "finished": .bool(false)]))
    }

    @Test func identicalChangesAreAlreadyEqual() {
        let both = book("Same", "Frank Herbert")
        var remote = both
        remote["last_modified"] = .number(99)
        #expect(ThreeWayMerge.merge(base: base, local: both, remote: remote, policy: .manual) == .alreadyEqual)
    }

    @Test func localDeleteOfAnUnchangedRecordIsPushed() {
        var remote = base
        remote["last_modified"] = .number(5)
        #expect(ThreeWayMerge.merge(base: base, local: nil, remote: remote, policy: .manual) == .push(nil))
    }

    @Test func deleteVersusEditIsAConflict() {
        let edited = book("Edited", "Frank Herbert", modified: 9)
        #expect(ThreeWayMerge.merge(base: base, local: nil, remote: edited, policy: .manual)
            == .conflict(MergeConflict(kind: .deleteVersusEdit, fields: [])))
        #expect(ThreeWayMerge.merge(base: base, local: nil, remote: edited, policy: .serverWins) == .acceptRemote)
        #expect(ThreeWayMerge.merge(base: base, local: nil, remote: edited, policy: .clientWins) == .push(nil))
    }

    @Test func editVersusDeleteIsAConflict() {
        let edited = book("Edited", "Frank Herbert")
        #expect(ThreeWayMerge.merge(base: base, local: edited, remote: nil, policy: .manual)
            == .conflict(MergeConflict(kind: .editVersusDelete, fields: [])))
        #expect(ThreeWayMerge.merge(base: base, local: edited, remote: nil, policy: .serverWins) == .acceptRemote)
        if case .push(let content?) = ThreeWayMerge.merge(base: base, local: edited, remote: nil, policy: .clientWins) {
            #expect(content["title"] == .string("Edited"))
        } else {
            Issue.record("client-wins must recreate the edited record")
        }
    }

    @Test func unchangedLocalFollowsAServerDelete() {
        #expect(ThreeWayMerge.merge(base: base, local: base, remote: nil, policy: .manual) == .acceptRemote)
    }

    @Test func twoCreationsWithoutABaseMergeWhatAgreesAndClashOnTheRest() {
        let local = book("Mine", "Frank Herbert")
        let remote = book("Theirs", "Frank Herbert", modified: 3)
        #expect(ThreeWayMerge.merge(base: nil, local: local, remote: remote, policy: .manual)
            == .conflict(MergeConflict(kind: .fields, fields: ["title"])))
    }

    @Test func fieldsAddedOnOneSideAreKeptAndRemovedFieldsStayRemoved() {
        var local = base
        local["subtitle"] = .string("Book one")
        var remote = base
        remote.removeValue(forKey: "finished")
        remote["last_modified"] = .number(9)
        let outcome = ThreeWayMerge.merge(base: base, local: local, remote: remote, policy: .manual)
        #expect(outcome == .push(["title": .string("Dune"), "author_name": .string("Frank Herbert"), "subtitle": .string("Book one")]))
    }
}
