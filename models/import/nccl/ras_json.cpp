// SPDX-License-Identifier: MIT
// RAS's JSON output (NCCL 2.28.7+, `ncclras -f json`): one status document, or monitor mode's event objects one
// after another. Small (a status lists every rank once), so read whole with nlohmann::json; every number through
// `integer`, which accepts only integers that fit.
#include "import/nccl/ras_status.h"

#include "import/common/small_json.h"

#include <algorithm>

namespace stallscope {

namespace {

using nlohmann::json;

std::int64_t integer(const json& o, const char* key)
{
    const auto it = o.find(key);
    if (it == o.end() || !it->is_number_integer()) {
        return -1;
    }
    return it->is_number_unsigned() && it->get<std::uint64_t>() > std::uint64_t(INT64_MAX) ? -1
                                                                                           : it->get<std::int64_t>();
}

std::string text(const json& o, const char* key, std::size_t max = 128)
{
    const auto it = o.find(key);
    return it != o.end() && it->is_string() ? it->get<std::string>().substr(0, max) : std::string();
}

bool flag(const json& o, const char* key)
{
    const auto it = o.find(key);
    return it != o.end() && it->is_boolean() && it->get<bool>();
}

// "[1]" / "[0,1]" → "1" / "0,1".
std::string devices(const json& o, const char* key)
{
    std::string out;
    const auto it = o.find(key);
    if (it == o.end() || !it->is_array()) {
        return out;
    }
    for (const auto& d : *it) {
        if (d.is_number_integer() && out.size() < 64) {
            out += (out.empty() ? "" : ",") + std::to_string(d.get<std::int64_t>());
        }
    }
    return out;
}

RasFact fact(RasFactKind kind, TimeNs at, const std::string& comm, std::uint32_t size)
{
    RasFact f;
    f.kind = kind;
    f.timeNs = at;
    f.comm = comm;
    f.commSize = size;
    return f;
}

void place(RasFact& f, const json& r)
{
    f.rank = integer(r, "rank");
    f.host = text(r, "host");
    f.pid = integer(r, "pid");
    const auto dev = integer(r, "cuda_dev");
    f.gpu = dev >= 0 ? std::to_string(dev) : std::string();
}

std::string who(const RasFact& f)
{
    return "rank " + std::to_string(f.rank) + " of communicator " + f.comm + " (" + std::to_string(f.commSize)
        + " ranks)";
}

void readCommunicator(const json& c, TimeNs at, RasReport& out)
{
    const auto comm = canonicalCommHash(text(c, "hash", 40));
    const auto size = static_cast<std::uint32_t>(std::clamp<std::int64_t>(integer(c, "size"), 0, 1 << 24));
    if (const auto it = c.find("ranks"); it != c.end() && it->is_array()) {
        for (const auto& r : *it) {
            const auto st = r.is_object() ? r.find("status") : r.end();
            if (st == r.end() || !st->is_object()) {
                continue;
            }
            const auto err = std::max(integer(*st, "async_error"), integer(*st, "init_state"));
            // 0 is ncclSuccess, 7 ncclInProgress (still initialising): neither is an error.
            if (err > 0 && err != 7) {
                auto f = fact(RasFactKind::AsyncError, at, comm, size);
                place(f, r);
                f.text = who(f) + ": NCCL error " + std::to_string(err)
                    + (integer(*st, "async_error") > 0 ? " (asynchronous)" : " (initialization)");
                out.facts.push_back(std::move(f));
            } else if (flag(*st, "abort_flag")) {
                auto f = fact(RasFactKind::Status, at, comm, size);
                place(f, r);
                f.text = who(f) + ": aborted";
                out.facts.push_back(std::move(f));
            }
        }
    }
    if (const auto it = c.find("missing_ranks"); it != c.end() && it->is_array()) {
        for (const auto& r : *it) {
            if (!r.is_object()) {
                continue;
            }
            const auto st = r.find("status");
            const bool dead = st != r.end() && st->is_object() && flag(*st, "considered_dead");
            const bool unresponsive = st != r.end() && st->is_object() && flag(*st, "unresponsive");
            auto f = fact(dead ? RasFactKind::Dead : RasFactKind::Missing, at, comm, size);
            place(f, r);
            f.text = who(f) + ": missing"
                + std::string(dead     ? ", considered dead"
                        : unresponsive ? ", unresponsive"
                                       : "");
            out.facts.push_back(std::move(f));
        }
    }
}

// One status document: nccl_version, timestamp, communicators[].
void readStatus(const json& doc, const LogClock& clock, RasReport& out)
{
    out.form = "status (JSON)";
    out.ncclVersion = text(doc, "nccl_version", 40);
    const auto at = rasTimeNs(text(doc, "timestamp", 40), clock);
    if (const auto it = doc.find("communicators"); it != doc.end() && it->is_array()) {
        for (const auto& c : *it) {
            if (c.is_object()) {
                ++out.communicators;
                readCommunicator(c, at, out);
            }
        }
    }
}

// One monitor event: timestamp, group, event, peer { host, pid, cuda_devs } or { addr }, details.
void readEvent(const json& doc, const LogClock& clock, RasReport& out)
{
    out.form = "monitor (JSON)";
    const auto event = text(doc, "event", 40);
    RasFact f;
    f.timeNs = rasTimeNs(text(doc, "timestamp", 40), clock);
    f.kind = event == "PEER_DEAD"      ? RasFactKind::Dead
        : event == "PEER_UNRESPONSIVE" ? RasFactKind::Unresponsive
                                       : RasFactKind::PeerEvent;
    if (const auto p = doc.find("peer"); p != doc.end() && p->is_object()) {
        f.host = text(*p, "host");
        f.host = f.host.empty() ? text(*p, "addr") : f.host;
        f.pid = integer(*p, "pid");
        f.gpu = devices(*p, "cuda_devs");
    }
    f.text = event + ": process " + std::to_string(f.pid) + " on " + f.host
        + (f.gpu.empty() ? "" : " (GPU " + f.gpu + ")");
    if (const auto d = text(doc, "details", 200); !d.empty()) {
        f.text += " — " + d;
    }
    out.facts.push_back(std::move(f));
}

// The top-level JSON values of `text` one after another (monitor mode writes one object per event): [begin, end)
// offsets, found by brace depth outside strings.
std::vector<std::pair<std::size_t, std::size_t>> documents(const std::string& text)
{
    std::vector<std::pair<std::size_t, std::size_t>> out;
    int depth = 0;
    bool inString = false, escaped = false;
    std::size_t begin = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            escaped = !escaped && c == '\\';
            inString = escaped || c != '"';
            continue;
        }
        if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            begin = depth++ == 0 ? i : begin;
        } else if ((c == '}' || c == ']') && depth > 0 && --depth == 0) {
            out.emplace_back(begin, i + 1);
        }
    }
    if (depth > 0) {
        out.emplace_back(begin, text.size()); // cut mid-write: reported by the parse
    }
    return out;
}

} // namespace

Result<RasReport> parseRasJson(const std::string& file, const std::string& text, const LogClock& clock)
{
    RasReport out;
    std::size_t bad = 0;
    std::optional<LoadIssue> firstBad;
    for (const auto& [b, e] : documents(text)) {
        auto doc = parseSmallJson(file, text.substr(b, e - b));
        if (!doc || !doc->is_object()) {
            if (!firstBad) {
                firstBad = doc
                    ? LoadIssue { file, 0, static_cast<std::int64_t>(b), "expected a JSON object" }
                    : LoadIssue { file, 0, static_cast<std::int64_t>(b) + std::max<std::int64_t>(0, doc.error().offset),
                          doc.error().message };
            }
            ++bad;
            continue;
        }
        if (doc->contains("communicators")) {
            readStatus(doc.value(), clock, out);
        } else if (doc->contains("event")) {
            readEvent(doc.value(), clock, out);
        }
    }
    if (out.form.empty()) {
        return firstBad
            ? *firstBad
            : LoadIssue { file, 0, -1,
                  "expected NCCL RAS JSON (a status with \"communicators\" or monitor events), found none" };
    }
    if (bad > 0) {
        auto w = *firstBad;
        w.message = std::to_string(bad) + " JSON value" + (bad > 1 ? "s" : "") + " unreadable (first: " + w.message
            + "): left out";
        out.warnings.push_back(std::move(w));
    }
    return out;
}

} // namespace stallscope
