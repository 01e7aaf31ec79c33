// SPDX-License-Identifier: MIT
#include "import/common/small_json.h"
#include "core/json_depth.h"

namespace stallscope {

Result<nlohmann::json> parseSmallJson(const std::string& file, const std::string& text)
{
    try {
        return parseJsonFile(text);
    } catch (const nlohmann::json::parse_error& e) {
        return LoadIssue { file, 0, static_cast<std::int64_t>(e.byte), std::string("invalid JSON: ") + e.what() };
    } catch (const nlohmann::json::exception& e) {
        return LoadIssue { file, 0, -1, std::string("unreadable JSON: ") + e.what() }; // e.g. out_of_range.406
    }
}

} // namespace stallscope
