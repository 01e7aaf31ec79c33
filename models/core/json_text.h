// SPDX-License-Identifier: MIT
#pragma once

// JSON text for what Stallscope writes (include only where nlohmann_json is linked). nlohmann's dump() throws on a
// string that is not UTF-8 — and strings here come from files: a path in Latin-1 ("caf\xe9.prom"), a host name
// from a log, a frame name from a pickle. `info --json` of such a folder ended with an uncaught type_error.316.
// Every document written goes through jsonText: bytes that are not UTF-8 become U+FFFD, the rest is unchanged.

#include <nlohmann/json.hpp>

#include <string>

namespace stallscope {

template <typename Json> std::string jsonText(const Json& j, int indent = -1)
{
    return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

} // namespace stallscope
