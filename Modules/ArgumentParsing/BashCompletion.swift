// MARK: - BashCompletion

/// The bash script: `complete -F _PROGRAM PROGRAM`, with the function reading
/// `COMP_WORDS` / `COMP_CWORD` and filling `COMPREPLY`. bash splits `--opt=value` at
/// the `=` (it is in `COMP_WORDBREAKS`), so a lone `=` after an option is skipped.
struct BashCompletion {
    let table: CompletionTable
    let helper: String

    private var name: String { ShellQuoting.identifier(table.program) }
    private func q(_ text: String) -> String { ShellQuoting.posix(text) }

    var script: String {
        let f = "_\(name)"
        var out = """
        # bash completion for \(table.program)
        # Written from \(table.program)'s command declarations by '\(table.program) completion bash'; do not edit.
        # Load it with: source <(\(table.program) completion bash)
        # or save it as ~/.local/share/bash-completion/completions/\(table.program)

        # Whether $2 is a subcommand of the command at path $1 ('' is the root).
        \(f)_child() {
            case "$1|$2" in

        """
        if let patterns = CompletionTable.alternatives(table.childKeys, quote: q, separator: "|") {
            out += "        \(patterns)) return 0 ;;\n"
        }
        out += """
            esac
            return 1
        }

        # The subcommands (REPLY) of the command at path $1.
        \(f)_subcommands() {
            case "$1" in

        """
        for command in table.commands where !command.subcommands.isEmpty {
            out += "        \(q(command.path))) REPLY=\(q(table.offered(command).map(\.name).joined(separator: " "))) ;;\n"
        }
        out += """
                *) REPLY='' ;;
            esac
        }

        # Every option (REPLY) the command at path $1 takes, shared ones included.
        \(f)_options() {
            case "$1" in

        """
        for command in table.commands {
            out += "        \(q(command.path))) REPLY=\(q(command.options.flatMap(\.names).joined(separator: " "))) ;;\n"
        }
        out += """
                *) REPLY='' ;;
            esac
        }


        """
        out += table.sharedCaseFunctions(function: f, quote: q, pattern: { "\($0))" }, action: action)
        out += """
        \(f)_words() {
            local IFS=$' \\t\\n'
            COMPREPLY=($(compgen -W "$1" -- "$\(f)_cur"))
        }

        \(f)_files() {
            local IFS=$'\\n'
            compopt -o filenames 2>/dev/null
            COMPREPLY=($(compgen -f -- "$\(f)_cur"))
        }

        # Words the program lists itself (local data only), one per line, before a tab.
        \(f)_dynamic() {
            local line program="${COMP_WORDS[0]/#\\~/$HOME}"
            COMPREPLY=()
            while IFS= read -r line; do
                [[ -n $line ]] && COMPREPLY+=("${line%%$'\\t'*}")
            done < <("$program" "${\(f)_passed[@]}" \(helper) "$@" -- "$\(f)_cur" 2>/dev/null)
        }

        \(f)() {
            local \(f)_cur="${COMP_WORDS[COMP_CWORD]}" \(f)_path='' \(f)_expect='' word
            local -a \(f)_passed=()
            local -i i nargs=0 ended=0 helping=0
            COMPREPLY=()
            for ((i = 1; i < COMP_CWORD; i++)); do
                word="${COMP_WORDS[i]}"
                if [[ -n $\(f)_expect ]]; then
                    [[ $word == '=' ]] && continue
                    case "$\(f)_expect" in

        """
        if let passed = CompletionTable.alternatives(table.passedOptions, quote: q, separator: "|") {
            out += "                \(passed)) \(f)_passed+=(\"$\(f)_expect\" \"$word\") ;;\n"
        }
        out += """
                    esac
                    \(f)_expect=''
                elif (( i == 1 )) && [[ $word == help ]]; then
                    helping=1
                elif (( !ended )) && [[ $word == -- ]]; then
                    ended=1
                elif (( !ended )) && [[ $word == -?* ]]; then
                    if \(f)_takes_value "$\(f)_path" "$word"; then \(f)_expect="$word"; fi
                elif (( nargs == 0 )) && \(f)_child "$\(f)_path" "$word"; then
                    \(f)_path="${\(f)_path:+$\(f)_path }$word"
                else
                    nargs+=1
                fi
            done
            if (( helping )); then
                # `help COMMAND…` names commands only.
                (( nargs == 0 )) && \(f)_subcommands "$\(f)_path" && \(f)_words "${REPLY% help}"
            elif [[ -n $\(f)_expect ]]; then
                [[ $\(f)_cur == '=' ]] && \(f)_cur=''
                \(f)_value "$\(f)_path" "$\(f)_expect"
            elif (( !ended )) && [[ $\(f)_cur == -* ]]; then
                \(f)_options "$\(f)_path"
                \(f)_words "$REPLY"
            elif (( nargs == 0 )) && \(f)_subcommands "$\(f)_path" && [[ -n $REPLY ]]; then
                \(f)_words "$REPLY"
            else
                \(f)_argument "$\(f)_path" "$nargs"
            fi
            return 0
        }

        complete -F \(f) \(table.program)

        """
        return out
    }

    private func action(_ kind: CompletionKind) -> String {
        let f = "_\(name)"
        switch kind {
        case .values(let words): return "\(f)_words \(q(words.joined(separator: " ")))"
        case .file: return "\(f)_files"
        case .dynamic(let words): return "\(f)_dynamic " + words.map(q).joined(separator: " ")
        }
    }
}
