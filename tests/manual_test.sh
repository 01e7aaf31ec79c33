#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The man pages and completions are made from the --help texts (app/cli/manual.cpp): every command `stallscope --help`
# lists and every option each command's --help lists must be in stallscope.1, both pages must render with groff
# without a warning, and the bash completion must offer commands, a command's options and the presets.
# Usage: manual_test.sh STALLSCOPE STALLSCOPE_COLLECT WORK_DIR
set -euo pipefail
bin="$1" collect="$2" work="$3"
rm -rf "$work"; mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

"$bin" help --man > "$work/stallscope.1"
"$collect" --man > "$work/stallscope-collect.1"
for page in stallscope.1 stallscope-collect.1; do
    warnings=$(groff -man -Tutf8 -ww -z "$work/$page" 2>&1)
    [ -z "$warnings" ] || fail "groff warns on $page: $warnings"
done

commands=$("$bin" --help | sed -n '/^Commands:/,/^$/p' | awk 'NF && $1 != "Commands:" {print $1}')
[ "$(wc -w <<<"$commands")" -ge 9 ] || fail "expected the commands of --help, got: $commands"
options() { "$@" --help | sed -n '/^Options:/,/^$/p' | sed -n 's/^  --\([a-z0-9-]*\).*/\1/p'; }
checked=0
for c in $commands; do
    [ "$c" = help ] && continue
    grep -qF ".SS \"stallscope ${c//-/\\-}\"" "$work/stallscope.1" || fail "command $c is not in stallscope.1"
    for o in $(options "$bin" "$c"); do
        grep -qF "\\fB\\-\\-${o//-/\\-}\\fR" "$work/stallscope.1" || fail "option --$o of $c is not in stallscope.1"
        checked=$((checked + 1))
    done
done
for o in $(options "$collect"); do
    grep -qF "\\fB\\-\\-${o//-/\\-}\\fR" "$work/stallscope-collect.1" || fail "--$o is not in stallscope-collect.1"
done
echo "stallscope.1: $(wc -w <<<"$commands") commands, $checked options; both pages render without warnings"

"$bin" help --completion bash > "$work/stallscope.bash"
"$bin" help --completion bash stallscope-collect > "$work/stallscope-collect.bash"
"$bin" help --completion zsh > "$work/_stallscope"
bash -n "$work/stallscope.bash" "$work/stallscope-collect.bash"
if command -v zsh > /dev/null; then zsh -n "$work/_stallscope"; fi
complete_words() { # complete_words SCRIPT FUNCTION WORD...: what the completion offers for the last word
    bash -c 'source "$1"; shift; f=$1; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); $f; echo "${COMPREPLY[*]}"' \
        _ "$@"
}
got=$(complete_words "$work/stallscope.bash" _stallscope stallscope si)
[ "$got" = simulate ] || fail "'stallscope si<TAB>' offered '$got'"
got=$(complete_words "$work/stallscope.bash" _stallscope stallscope simulate --pre)
[ "$got" = --preset ] || fail "'stallscope simulate --pre<TAB>' offered '$got'"
got=$(complete_words "$work/stallscope.bash" _stallscope stallscope simulate --preset "")
grep -qw hourly-flap <<<"$got" || fail "'--preset <TAB>' offered '$got'"
got=$(complete_words "$work/stallscope-collect.bash" _stallscope_collect stallscope-collect --int)
[ "$got" = --interval ] || fail "'stallscope-collect --int<TAB>' offered '$got'"
echo "completions: commands, options and presets offered"
