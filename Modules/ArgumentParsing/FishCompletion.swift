// MARK: - FishCompletion

/// The fish script: one `complete` rule whose candidates come from a function that
/// walks `commandline -opc` and prints `word<TAB>description` lines; fish filters them
/// by the current token.
struct FishCompletion {
    let table: CompletionTable
    let helper: String

    private var name: String { ShellQuoting.identifier(table.program) }
    private func q(_ text: String) -> String { ShellQuoting.fish(text) }

    /// `printf` of `word<TAB>description` lines.
    private func printLines(_ pairs: [(String, String)]) -> String {
        "printf '%s\\t%s\\n' " + pairs.map { q($0.0) + " " + q(ShellQuoting.oneLine($0.1)) }.joined(separator: " ")
    }

    /// A function switching on `"$argv[1]|$argv[2]"` (a command's path and one of its
    /// options or arguments) to what completes its value, one case per kind.
    private func valueSwitch(_ function: String, comment: String, _ entries: [(key: String, kind: CompletionKind)]) -> String {
        var text = """
        # \(comment)
        function \(function)
            switch "$argv[1]|$argv[2]"

        """
        for group in CompletionTable.grouped(entries) {
            text += "        case \(group.keys.map(q).joined(separator: " "))\n            \(action(group.kind))\n"
        }
        return text + """
            end
        end


        """
    }

    var script: String {
        let f = "__\(name)"
        var out = """
        # fish completion for \(table.program)
        # Written from \(table.program)'s command declarations by '\(table.program) completion fish'; do not edit.
        # Load it with: \(table.program) completion fish | source
        # or save it as ~/.config/fish/completions/\(table.program).fish

        # Whether $argv[2] is a subcommand of the command at path $argv[1] ('' is the root).
        function \(f)_child
            switch "$argv[1]|$argv[2]"

        """
        if !table.childKeys.isEmpty {
            out += "        case \(table.childKeys.map(q).joined(separator: " "))\n            return 0\n"
        }
        out += """
            end
            return 1
        end

        # The subcommands of the command at path $argv[1], with their descriptions.
        function \(f)_subcommands
            switch "$argv[1]"

        """
        for command in table.commands where !command.subcommands.isEmpty {
            out += "        case \(q(command.path))\n            \(printLines(table.offered(command)))\n"
        }
        out += """
            end
        end

        # Every option the command at path $argv[1] takes, with its description.
        function \(f)_options
            switch "$argv[1]"

        """
        for command in table.commands {
            let pairs = command.options.flatMap { option in option.names.map { ($0, option.help) } }
            out += "        case \(q(command.path))\n            \(printLines(pairs))\n"
        }
        out += """
            end
        end

        # Whether option $argv[2] of the command at path $argv[1] takes a value.
        function \(f)_takes_value
            switch "$argv[1]|$argv[2]"

        """
        let valued = table.valuedOptions.map { "\($0.path)|\($0.name)" }
        if !valued.isEmpty {
            out += "        case \(valued.map(q).joined(separator: " "))\n            return 0\n"
        }
        out += """
            end
            return 1
        end


        """
        out += valueSwitch(
            "\(f)_value", comment: "The values of option $argv[2] of the command at path $argv[1]; $argv[3] is typed.",
            table.optionValues.map { ("\($0.path)|\($0.name)", $0.kind) })
        out += valueSwitch(
            "\(f)_argument", comment: "The values of positional argument $argv[2] (from 0) of the command at path $argv[1].",
            table.argumentValues.map { ("\($0.path)|\($0.index)", $0.kind) })
        out += """
        # Words the program lists itself (local data only); $argv[1] is typed.
        function \(f)_dynamic
            $\(f)_program $\(f)_passed \(helper) $argv[2..-1] -- $argv[1] 2>/dev/null
        end

        function \(f)_complete
            set -l tokens (commandline -opc)
            set -l cur (commandline -ct)
            set -l cmd ''
            set -l expect ''
            set -l nargs 0
            set -l ended 0
            set -l helping 0
            set -l index 0
            set -g \(f)_program (string replace -r -- '^~' $HOME $tokens[1])
            set -g \(f)_passed
            for word in $tokens[2..-1]
                set index (math $index + 1)
                if test -n "$expect"
                    if contains -- $expect \(table.passedOptions.map(q).joined(separator: " "))
                        set -a \(f)_passed $expect $word
                    end
                    set expect ''
                else if test $index = 1; and test "$word" = help
                    set helping 1
                else if test $ended = 0; and test "$word" = '--'
                    set ended 1
                else if test $ended = 0; and string match -q -- '--*=*' $word
                    set -l parts (string split -m 1 = -- $word)
                    if contains -- $parts[1] \(table.passedOptions.map(q).joined(separator: " "))
                        set -a \(f)_passed $parts
                    end
                else if test $ended = 0; and string match -q -- '-?*' $word
                    if \(f)_takes_value "$cmd" $word
                        set expect $word
                    end
                else if test $nargs = 0; and \(f)_child "$cmd" $word
                    if test -z "$cmd"
                        set cmd $word
                    else
                        set cmd "$cmd $word"
                    end
                else
                    set nargs (math $nargs + 1)
                end
            end
            set -l subcommands
            if test $nargs = 0
                set subcommands (\(f)_subcommands "$cmd")
            end
            if test $helping = 1
                # `help COMMAND…` names commands only.
                printf '%s\n' $subcommands | string match -v -- 'help\t*'
            else if test -n "$expect"
                \(f)_value "$cmd" $expect "$cur"
            else if test $ended = 0; and string match -q -- '--*=*' "$cur"
                set -l parts (string split -m 1 = -- $cur)
                for value in (\(f)_value "$cmd" $parts[1] "$parts[2]")
                    printf '%s=%s\\n' $parts[1] $value
                end
            else if test $ended = 0; and string match -q -- '-*' "$cur"
                \(f)_options "$cmd"
            else if test (count $subcommands) -gt 0
                printf '%s\\n' $subcommands
            else
                \(f)_argument "$cmd" $nargs "$cur"
            end
        end

        complete -c \(table.program) -f -a '(\(f)_complete)'

        """
        return out
    }

    private func action(_ kind: CompletionKind) -> String {
        switch kind {
        case .values(let words): return "printf '%s\\n' " + words.map(q).joined(separator: " ")
        case .file: return "__fish_complete_path $argv[3]"
        case .dynamic(let words): return "__\(name)_dynamic \"$argv[3]\" " + words.map(q).joined(separator: " ")
        }
    }
}
