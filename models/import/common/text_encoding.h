// SPDX-License-Identifier: MIT
#pragma once

// Files that passed through Windows tools start with a byte-order mark: Notepad and PowerShell 7's `Out-File
// -Encoding utf8BOM` write a UTF-8 BOM, and Windows PowerShell 5.1's `>` and `Out-File` write UTF-16LE with one
// (`ibnetdiscover > topo.txt` run over a remote session). Read as they were, a profiler trace or a Flight Recorder
// JSON dump with a UTF-8 BOM was "not a recognised format", an ibnetdiscover topology lost its first line, and a
// UTF-16 file was nothing at all. Every format reader wants UTF-8 without a BOM.

#include <cstdint>
#include <string>

namespace stallscope {

// What a file's text was before `asUtf8Text` (the readers need not know; tests ask).
enum class TextEncoding { Utf8, Utf8Bom, Utf16Le, Utf16Be };

// Strips a UTF-8 BOM (EF BB BF) and transcodes UTF-16 that begins with its BOM (FF FE little-endian, FE FF
// big-endian; Unicode §23.8) to UTF-8 in place; anything else is left as it is (a file without a BOM is never
// guessed at). Unpaired surrogates and an odd last byte become U+FFFD. Line numbers are unchanged; byte offsets in
// later warnings count the UTF-8 text. Keeps `extraCapacity` spare bytes after the text (simdjson's padding).
TextEncoding asUtf8Text(std::string& bytes, std::size_t extraCapacity);

// Bytes the UTF-8 text of `size` bytes of UTF-16 may take at most (3 per 2: a character of U+0800..U+FFFF).
inline std::uint64_t utf8BytesAtMostFromUtf16(std::uint64_t size)
{
    return size / 2 * 3 + 3;
}

} // namespace stallscope
