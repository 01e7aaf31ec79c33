// SPDX-License-Identifier: MIT
#pragma once

// Small JSON documents (a mapping file, a Prometheus HTTP answer) parsed whole with nlohmann::json. Every way the
// parse can fail — bad syntax, a number out of range such as 1e999 — is an issue naming the file and the byte
// offset, never an exception. (Bulk JSON — dumps, traces — goes through simdjson On-Demand instead.)

#include "core/result.h"

#include <nlohmann/json.hpp>

#include <string>

namespace stallscope {

Result<nlohmann::json> parseSmallJson(const std::string& file, const std::string& text);

} // namespace stallscope
