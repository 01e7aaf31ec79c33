// SPDX-License-Identifier: MIT
// What the RAS readers share: names of the facts, communicator hashes, timestamps and recognition.
#include "import/nccl/ras_status.h"

#include "import/common/line_scan.h"

#include <cctype>

namespace stallscope {

std::string_view toString(RasFactKind k)
{
    switch (k) {
    case RasFactKind::Dead:
        return "considered dead";
    case RasFactKind::Unresponsive:
        return "unresponsive";
    case RasFactKind::Missing:
        return "missing from communicator";
    case RasFactKind::Behind:
        return "behind in operations";
    case RasFactKind::AsyncError:
        return "NCCL error";
    case RasFactKind::Status:
        return "communicator status";
    case RasFactKind::PeerEvent:
        return "RAS event";
    }
    return "RAS";
}

std::string canonicalCommHash(std::string_view hash)
{
    if (hash.size() > 2 && hash[0] == '0' && (hash[1] == 'x' || hash[1] == 'X')) {
        hash.remove_prefix(2);
    }
    std::string out;
    for (const char c : hash.substr(0, 32)) {
        if (!std::isxdigit(static_cast<unsigned char>(c))) {
            return {};
        }
        if (out.empty() && c == '0') {
            continue;
        }
        out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out.empty() && !hash.empty() ? "0" : out;
}

TimeNs rasTimeNs(std::string_view stamp, const LogClock& clock)
{
    // strftime "%F %T": "2025-12-19 13:06:53", fields read in order, each or nothing.
    LineScan s(stamp);
    int v[6] = {};
    const char* seps[6] = { "", "-", "-", " ", ":", ":" };
    const std::size_t widths[6] = { 4, 2, 2, 2, 2, 2 };
    for (int i = 0; i < 6; ++i) {
        const auto n = s.lit(seps[i]) ? s.fixed(widths[i]) : std::nullopt;
        if (!n) {
            return kNoTime;
        }
        v[i] = *n;
    }
    if (v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > 31 || v[3] > 23 || v[4] > 59 || v[5] > 60) {
        return kNoTime;
    }
    return logTimeNs(clock, v[0], v[1], v[2], v[3], v[4], v[5], 0);
}

bool looksLikeRasText(const std::string& text)
{
    const auto head = std::string_view(text).substr(0, 8192);
    if (head.find("Job summary\n") != std::string_view::npos
        && (head.find("Communicators...") != std::string_view::npos
            || head.find("Group     Comms     Nodes") != std::string_view::npos)) {
        return true;
    }
    if (head.find("RAS Monitor Mode") != std::string_view::npos) {
        return true;
    }
    // A monitor's event lines alone: "[2025-12-19 13:07:07] PEER_DEAD: ..." at the start of the text.
    LineScan s(head);
    s.skipSpaces();
    return s.lit("[") && s.fixed(4) && s.skipPast("] PEER_") && s.word().size() > 0 && s.lit(":");
}

bool looksLikeRasJson(const std::string& text)
{
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos || text[first] != '{') {
        return false;
    }
    const auto head = std::string_view(text).substr(first, 4096);
    return (head.find("\"communicators_count\"") != std::string_view::npos
               && head.find("\"nccl_version\"") != std::string_view::npos)
        || (head.find("\"group\": \"LIFECYCLE\"") != std::string_view::npos
            || head.find("\"group\": \"TRACE\"") != std::string_view::npos);
}

} // namespace stallscope
