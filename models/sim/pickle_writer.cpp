// SPDX-License-Identifier: MIT
#include "sim/pickle_writer.h"

#include <cstring>

namespace stallscope {

namespace {

void le(std::string& out, std::uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; ++i) {
        out += static_cast<char>((v >> (8 * i)) & 0xff);
    }
}

} // namespace

PickleWriter::PickleWriter()
{
    m_out += "\x80\x02";
}

void PickleWriter::put()
{
    if (m_memo < 256) {
        m_out += 'q';
        le(m_out, m_memo, 1);
    } else {
        m_out += 'r';
        le(m_out, m_memo, 4);
    }
    ++m_memo;
}

void PickleWriter::beginDict()
{
    m_out += '}';
    put();
    m_out += '(';
}

void PickleWriter::endDict()
{
    m_out += 'u';
}

void PickleWriter::beginList()
{
    m_out += ']';
    put();
    m_out += '(';
}

void PickleWriter::endList()
{
    m_out += 'e';
}

void PickleWriter::tuple2(std::string_view a, std::string_view b)
{
    str(a);
    str(b);
    m_out += '\x86';
    put();
}

void PickleWriter::str(std::string_view s)
{
    if (auto it = m_memoStrings.find(std::string(s)); it != m_memoStrings.end()) {
        if (it->second < 256) {
            m_out += 'h';
            le(m_out, it->second, 1);
        } else {
            m_out += 'j';
            le(m_out, it->second, 4);
        }
        return;
    }
    m_out += 'X';
    le(m_out, s.size(), 4);
    m_out += s;
    m_memoStrings.emplace(std::string(s), m_memo);
    put();
}

void PickleWriter::integer(std::int64_t v)
{
    if (v >= 0 && v < 256) {
        m_out += 'K';
        le(m_out, static_cast<std::uint64_t>(v), 1);
    } else if (v >= 0 && v < 65536) {
        m_out += 'M';
        le(m_out, static_cast<std::uint64_t>(v), 2);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
        m_out += 'J';
        le(m_out, static_cast<std::uint32_t>(static_cast<std::int32_t>(v)), 4);
    } else {
        m_out += '\x8a';
        m_out += '\x08';
        le(m_out, static_cast<std::uint64_t>(v), 8); // two's complement, little-endian
    }
}

void PickleWriter::real(double v)
{
    std::uint64_t bits;
    std::memcpy(&bits, &v, 8);
    m_out += 'G';
    for (int i = 7; i >= 0; --i) {
        m_out += static_cast<char>((bits >> (8 * i)) & 0xff); // big-endian
    }
}

void PickleWriter::boolean(bool v)
{
    m_out += v ? '\x88' : '\x89';
}

void PickleWriter::none()
{
    m_out += 'N';
}

std::string PickleWriter::finish()
{
    m_out += '.';
    return std::move(m_out);
}

} // namespace stallscope
