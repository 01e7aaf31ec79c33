// SPDX-License-Identifier: MIT
#include "import/common/text_lines.h"

namespace stallscope {

bool TextLines::next(std::string& line)
{
    if (m_pos >= m_text.size()) {
        return false;
    }
    auto end = m_text.find('\n', m_pos);
    if (end == std::string_view::npos) {
        end = m_text.size();
    }
    std::size_t len = end - m_pos;
    if (len > 0 && m_text[m_pos + len - 1] == '\r') {
        --len;
    }
    ++m_number;
    if (len > kMaxLineBytes) {
        len = kMaxLineBytes;
        if (m_cut++ == 0) {
            m_firstCut = m_number;
        }
    }
    line.assign(m_text.data() + m_pos, len);
    m_pos = end + 1;
    return true;
}

std::optional<LoadIssue> TextLines::cutWarning(const std::string& file) const
{
    if (m_cut == 0) {
        return std::nullopt;
    }
    return LoadIssue { file, m_firstCut, -1,
        std::to_string(m_cut) + (m_cut == 1 ? " line" : " lines") + " longer than " + std::to_string(kMaxLineBytes)
            + " bytes read up to that length (this is the first)" };
}

} // namespace stallscope
