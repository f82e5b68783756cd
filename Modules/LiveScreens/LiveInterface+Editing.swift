import Domain
import Presentation
import Terminal

// MARK: - Prompt

/// The line being edited at the bottom of the screen, what it asks for and what its answer
/// leads to: a book's title then its author (`e`), a new note's title then its body (`n`),
/// a note's title then its body (`e` on a note; a body of several lines goes to `$EDITOR`).
struct Prompt: Equatable {
    enum Purpose: Equatable {
        case bookTitle(Book)
        case bookAuthor(Book, title: String)
        case newNoteTitle(bookID: Book.ID)
        case newNoteBody(bookID: Book.ID, title: String)
        case noteTitle(Note)
        case noteBody(Note, title: String)
    }

    let label: String
    var editor: LineEditor
    let purpose: Purpose

    init(_ label: String, _ text: String, _ purpose: Purpose) {
        self.label = label
        editor = LineEditor(text)
        self.purpose = purpose
    }
}

// MARK: - Editing

/// The writes typed on the prompt line, each a model's intent. A refused answer (an empty
/// title, a write that failed) reopens its prompt with the text typed, so nothing is lost.
extension LiveInterface {
    /// A body is edited inline when it is one line that fits the prompt; else in `$EDITOR`.
    static let inlineBodyLimit = 200

    /// `e`: the selected book (at the library) or the place's book or note.
    func beginEditing() {
        switch currentPlace {
        case .note(let note, _): prompt = Prompt("Title", note.title, .noteTitle(note))
        default:
            guard let book = selectedBook else { return }
            prompt = Prompt("Title", book.title, .bookTitle(book))
        }
    }

    /// `n`: a new note about the selected book (at the library) or the place's book.
    func beginNewNote() {
        guard let book = selectedBook else { return }
        prompt = Prompt("New note about \(book.title) — title", "", .newNoteTitle(bookID: book.id))
    }

    /// `E` on a note: its body in `$EDITOR`, whatever its length.
    func editBodyInEditor() async {
        guard case .note(let note, _) = currentPlace else { return }
        await editInEditor(note, title: note.title)
    }

    func handlePrompt(_ key: Key) async {
        guard var current = prompt else { return }
        switch current.editor.apply(key) {
        case .editing:
            prompt = current
        case .cancelled:
            prompt = nil
            notice = "Nothing changed."
        case .submitted(let text):
            prompt = nil
            await submit(text, for: current.purpose)
        }
    }

    private func submit(_ text: String, for purpose: Prompt.Purpose) async {
        switch purpose {
        case .bookTitle(let book):
            guard accepted(title: text, else: Prompt("Title", text, purpose)) else { return }
            prompt = Prompt("Author", book.author, .bookAuthor(book, title: text))
        case .bookAuthor(let book, let title):
            models.book.show(book)
            let saved = await models.book.edit(title: title, author: text) != nil
            await settle(saved, refusal: models.book.errorMessage, reopening: Prompt("Title", title, .bookTitle(book)))
        case .newNoteTitle(let bookID):
            guard accepted(title: text, else: Prompt("New note — title", text, purpose)) else { return }
            prompt = Prompt("Body (Enter saves; empty for none)", "", .newNoteBody(bookID: bookID, title: text))
        case .newNoteBody(let bookID, let title):
            guard let model = models.note else {
                notice = "Notes cannot be written here."
                return
            }
            let saved = await model.add(title: title, body: text, bookID: bookID) != nil
            await settle(saved, refusal: model.errorMessage, reopening: Prompt("Title", title, .newNoteTitle(bookID: bookID)),
                         done: "Note added; the next sync sends it.")
        case .noteTitle(let note):
            guard accepted(title: text, else: Prompt("Title", text, purpose)) else { return }
            let fitsInline = note.body.count <= Self.inlineBodyLimit && !note.body.contains(where: \.isNewline)
            if fitsInline {
                prompt = Prompt("Body", note.body, .noteBody(note, title: text))
            } else if models.editText != nil {
                await editInEditor(note, title: text)
            } else {
                await save(note, title: text, body: note.body)
                if prompt == nil { notice = "Title saved; set $EDITOR to edit a body of several lines here." }
            }
        case .noteBody(let note, let title):
            await save(note, title: title, body: text)
        }
    }

    /// Whether Domain's rule takes the title; when not, `reopened` comes back with the
    /// reason, before the next step is asked, so what is typed next is not typed in vain.
    private func accepted(title: String, else reopened: Prompt) -> Bool {
        do {
            _ = try TitleRule.validate(title)
            return true
        } catch {
            notice = "\(error)"
            prompt = reopened
            return false
        }
    }

    /// After a write: what it did, or why not with its prompt open again; the screen reads again.
    private func settle(_ saved: Bool, refusal: String?, reopening: Prompt, done: String = "Saved; the next sync sends it.") async {
        notice = saved ? done : refusal
        if !saved { prompt = reopening }
        await refreshShown()
    }

    /// Hands the note's body to `$EDITOR` and saves what comes back with `title`; a save
    /// that fails keeps the editor's file and names it.
    private func editInEditor(_ note: Note, title: String) async {
        guard let edit = models.editText else {
            notice = "Set $EDITOR to edit a body of several lines here, or use 'shelf note edit'."
            return
        }
        let edited = await edit(note.body)
        if let failure = edited.failure {
            notice = failure
        } else if let body = edited.text {
            let saved = await save(note, title: title, body: body)
            if let file = edited.settle(saved) { notice = (notice ?? "Not saved") + "; what you wrote is kept in \(file)" }
        } else if title != note.title {
            _ = edited.settle(true)
            await save(note, title: title, body: note.body)
        } else {
            _ = edited.settle(true)
            notice = "Nothing changed."
        }
    }

    /// - Returns: whether the note was saved.
    @discardableResult
    private func save(_ note: Note, title: String, body: String) async -> Bool {
        guard let model = models.note else {
            notice = "Notes cannot be written here."
            return false
        }
        model.show(note)
        let saved = await model.edit(title: title, body: body) != nil
        notice = saved ? "Saved; the next sync sends it." : model.errorMessage
        await refreshShown()
        return saved
    }
}
