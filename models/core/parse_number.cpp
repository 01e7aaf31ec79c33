// SPDX-License-Identifier: MIT
#include "core/parse_number.h"

#include <cmath>
#include <cstdlib>

namespace stallscope {

std::optional<double> parseDouble(std::string_view text)
{
    // libstdc++ 12 has from_chars for double; strtod would accept leading blanks and read past the view.
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty() || !std::isfinite(value)) {
        return std::nullopt;
    }
    return value;
}

} // namespace stallscope
