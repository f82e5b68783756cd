// MARK: - ZshCompletion

/// The zsh script: a `#compdef` function (for a file named `_PROGRAM` in `$fpath`)
/// that also registers itself with `compdef` when sourced. Subcommands and options are
/// offered with their help as descriptions; `--opt=value` is one word in zsh.
struct ZshCompletion {
    let table: CompletionTable
    let helper: String

    private var name: String { ShellQuoting.identifier(table.program) }
    private func q(_ text: String) -> String { ShellQuoting.posix(text) }

    /// `name:description` for `_describe`, the name's colons escaped.
    private func spec(_ word: String, _ description: String) -> String {
        q(word.replacing(":", with: "\\:") + ":" + ShellQuoting.oneLine(description))
    }

    var script: String {
        let f = "_\(name)"
        var out = """
        #compdef \(table.program)
        # zsh completion for \(table.program)
        # Written from \(table.program)'s command declarations by '\(table.program) completion zsh'; do not edit.
        # Load it with: source <(\(table.program) completion zsh)
        # or save it as _\(table.program) in a directory of $fpath

        # Whether $2 is a subcommand of the command at path $1 ('' is the root).
        \(f)_child() {
            case "$1|$2" in

        """
        if let patterns = CompletionTable.alternatives(table.childKeys, quote: q, separator: "|") {
            out += "        (\(patterns)) return 0 ;;\n"
        }
        out += """
            esac
            return 1
        }

        # The subcommands of the command at path $1, as name:description (reply).
        \(f)_subcommands() {
            case "$1" in

        """
        for command in table.commands where !command.subcommands.isEmpty {
            let specs = table.offered(command).map { spec($0.name, $0.abstract) }.joined(separator: " ")
            out += "        (\(q(command.path))) reply=(\(specs)) ;;\n"
        }
        out += """
                (*) reply=() ;;
            esac
        }

        # Every option the command at path $1 takes, as name:description (reply).
        \(f)_options() {
            case "$1" in

        """
        for command in table.commands {
            let specs = command.options.flatMap { option in option.names.map { spec($0, option.help) } }.joined(separator: " ")
            out += "        (\(q(command.path))) reply=(\(specs)) ;;\n"
        }
        out += """
                (*) reply=() ;;
            esac
        }


        """
        out += table.sharedCaseFunctions(function: f, quote: q, pattern: { "(\($0))" }, action: action)
        out += """
        # Words the program lists itself (local data only): word<TAB>description lines.
        \(f)_dynamic() {
            local line program=${(Q)words[1]}
            local -a specs
            program=${program/#\\~/$HOME}
            for line in ${(f)"$($program "${\(f)_passed[@]}" \(helper) "$@" -- "$PREFIX" 2>/dev/null)"}; do
                if [[ $line == *$'\\t'* ]]; then
                    specs+=("${${line%%$'\\t'*}//:/\\\\:}:${line#*$'\\t'}")
                else
                    specs+=("${line//:/\\\\:}")
                fi
            done
            _describe -t values 'value' specs
        }

        \(f)() {
            local cur=${words[CURRENT]} \(f)_cmd='' \(f)_expect='' word
            local -a \(f)_passed reply
            local -i i nargs=0 ended=0 helping=0
            for (( i = 2; i < CURRENT; i++ )); do
                word=${words[i]}
                if [[ -n $\(f)_expect ]]; then
                    case "$\(f)_expect" in

        """
        if let passed = CompletionTable.alternatives(table.passedOptions, quote: q, separator: "|") {
            out += "                (\(passed)) \(f)_passed+=(\"$\(f)_expect\" \"$word\") ;;\n"
        }
        out += """
                    esac
                    \(f)_expect=''
                elif (( i == 2 )) && [[ $word == help ]]; then
                    helping=1
                elif (( ! ended )) && [[ $word == -- ]]; then
                    ended=1
                elif (( ! ended )) && [[ $word == --*=* ]]; then
                    case "${word%%=*}" in

        """
        if let passed = CompletionTable.alternatives(table.passedOptions, quote: q, separator: "|") {
            out += "                (\(passed)) \(f)_passed+=(\"${word%%=*}\" \"${word#*=}\") ;;\n"
        }
        out += """
                    esac
                elif (( ! ended )) && [[ $word == -?* ]]; then
                    if \(f)_takes_value "$\(f)_cmd" "$word"; then \(f)_expect=$word; fi
                elif (( nargs == 0 )) && \(f)_child "$\(f)_cmd" "$word"; then
                    \(f)_cmd="${\(f)_cmd:+$\(f)_cmd }$word"
                else
                    (( nargs++ ))
                fi
            done
            if (( helping )); then
                # `help COMMAND…` names commands only.
                if (( nargs == 0 )) && \(f)_subcommands "$\(f)_cmd"; then
                    reply=(${reply:#help:*})
                    _describe -t commands 'command' reply
                fi
            elif [[ -n $\(f)_expect ]]; then
                \(f)_value "$\(f)_cmd" "$\(f)_expect"
            elif (( ! ended )) && [[ $cur == --*=* ]]; then
                local option=${cur%%=*}
                compset -P '*='
                \(f)_value "$\(f)_cmd" "$option"
            elif (( ! ended )) && [[ $cur == -* ]]; then
                \(f)_options "$\(f)_cmd"
                _describe -t options 'option' reply
            elif (( nargs == 0 )) && \(f)_subcommands "$\(f)_cmd" && (( $#reply )); then
                _describe -t commands 'command' reply
            else
                \(f)_argument "$\(f)_cmd" "$nargs"
            fi
        }

        if [[ $funcstack[1] == \(f) ]]; then
            \(f) "$@"
        else
            compdef \(f) \(table.program)
        fi

        """
        return out
    }

    private func action(_ kind: CompletionKind) -> String {
        switch kind {
        case .values(let words): return "compadd -- " + words.map(q).joined(separator: " ")
        case .file: return "_files"
        case .dynamic(let words): return "_\(name)_dynamic " + words.map(q).joined(separator: " ")
        }
    }
}
