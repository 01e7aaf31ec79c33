// SPDX-License-Identifier: MIT
#include "import/common/text_encoding.h"

#include <cstdint>

namespace stallscope {

namespace {

constexpr char32_t kReplacement = 0xFFFD;

std::size_t utf8Length(char32_t c)
{
    return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}

void appendUtf8(std::string& out, char32_t c)
{
    if (c < 0x80) {
        out += static_cast<char>(c);
    } else if (c < 0x800) {
        out += static_cast<char>(0xC0 | (c >> 6));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        out += static_cast<char>(0xE0 | (c >> 12));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (c >> 18));
        out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    }
}

// Walks the UTF-16 code units after the BOM, calling `emit` with each character (U+FFFD for what is not one).
template <class Emit> void forEachUtf16Char(const std::string& bytes, bool littleEndian, Emit emit)
{
    const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
    const std::size_t n = bytes.size();
    auto unit = [&](std::size_t i) -> char32_t {
        return littleEndian ? char32_t(b[i] | (b[i + 1] << 8)) : char32_t((b[i] << 8) | b[i + 1]);
    };
    std::size_t i = 2;
    for (; i + 1 < n; i += 2) {
        const char32_t u = unit(i);
        if (u >= 0xD800 && u <= 0xDBFF && i + 3 < n) {
            const char32_t low = unit(i + 2);
            if (low >= 0xDC00 && low <= 0xDFFF) {
                emit(0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00));
                i += 2;
                continue;
            }
        }
        emit(u >= 0xD800 && u <= 0xDFFF ? kReplacement : u);
    }
    if (i < n) {
        emit(kReplacement); // an odd last byte: half a code unit
    }
}

} // namespace

TextEncoding asUtf8Text(std::string& bytes, std::size_t extraCapacity)
{
    const auto at = [&](std::size_t i) { return static_cast<unsigned char>(bytes[i]); };
    if (bytes.size() >= 3 && at(0) == 0xEF && at(1) == 0xBB && at(2) == 0xBF) {
        bytes.erase(0, 3); // capacity kept: the padding is still there
        return TextEncoding::Utf8Bom;
    }
    if (bytes.size() < 2 || !((at(0) == 0xFF && at(1) == 0xFE) || (at(0) == 0xFE && at(1) == 0xFF))) {
        return TextEncoding::Utf8;
    }
    const bool le = at(0) == 0xFF;
    std::size_t length = 0; // one pass to size the output, one allocation
    forEachUtf16Char(bytes, le, [&](char32_t c) { length += utf8Length(c); });
    std::string out;
    out.reserve(length + extraCapacity);
    forEachUtf16Char(bytes, le, [&](char32_t c) { appendUtf8(out, c); });
    bytes.swap(out);
    return le ? TextEncoding::Utf16Le : TextEncoding::Utf16Be;
}

} // namespace stallscope
