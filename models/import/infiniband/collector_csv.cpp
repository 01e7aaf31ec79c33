// SPDX-License-Identifier: MIT
#include "import/infiniband/collector_csv.h"

#include "core/parse_number.h"
#include "core/warning_cap.h"
#include "import/common/text_lines.h"

#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>

namespace stallscope {

bool looksLikeCollectorCsv(const std::string& text)
{
    return text.rfind(kCollectorCsvHeader, 0) == 0;
}

namespace {

// The cells of a row, as views into it (a trailing comma is one more, empty cell).
void splitCsv(std::string_view line, std::vector<std::string_view>& out)
{
    out.clear();
    for (std::size_t at = 0;;) {
        const auto comma = line.find(',', at);
        out.push_back(line.substr(at, comma == std::string_view::npos ? std::string_view::npos : comma - at));
        if (comma == std::string_view::npos) {
            break;
        }
        at = comma + 1;
    }
}

// A host port as the rows name it ("host,device,port"), resolved once: its node, and the index of its first series
// for the backwards check (one per counter column). A week of rows names the same few ports millions of times.
struct RowPort
{
    std::optional<std::uint64_t> guid;
    std::uint16_t port = 0;
    std::uint32_t firstSeries = 0;
};

} // namespace

void readCollectorCsv(const std::string& file, const std::string& text, const GuidOfHca& guidOfHca, CounterSink& sink,
    std::vector<LoadIssue>& warnings)
{
    TextLines reader(text);
    std::string line;
    reader.next(line);
    std::vector<std::string_view> cells;
    splitCsv(line, cells);
    const std::vector<std::string> header(cells.begin(), cells.end());
    if (header.size() < 4) { // t_ns, host, device, port: what every row needs before its counters
        warnings.push_back({ file, 1, -1, "expected the header \"t_ns,host,device,port,...\": file skipped" });
        return;
    }
    std::vector<std::optional<CounterKind>> kinds(header.size());
    for (std::size_t c = 5; c < header.size(); ++c) {
        kinds[c] = parseCounterKind(header[c]);
    }
    std::unordered_map<std::string, RowPort> ports; // "host,device,port" → the port
    std::vector<std::string> portNames; // by RowPort::firstSeries / columns: "host device port N"
    const auto columns = static_cast<std::uint32_t>(header.size());
    BackwardsCheck backwards(file);
    std::set<std::string> unknownHcas; // warned about once each
    std::string key;
    WarningCap cap(warnings);
    // A row's warning, unless the file has said enough: then only counted (its message never built).
    const auto warn = [&](std::int64_t lineNo, auto&& message) {
        if (cap.full()) {
            cap.count();
        } else {
            warnings.push_back({ file, lineNo, -1, message() });
        }
    };
    while (reader.next(line)) {
        const std::int64_t lineNo = reader.number();
        if (line.empty()) {
            continue; // a blank row (an editor's trailing newline, two files joined): nothing to say
        }
        splitCsv(line, cells);
        if (cells.size() != header.size()) {
            warn(lineNo, [&] {
                return "expected " + std::to_string(header.size()) + " columns, got " + std::to_string(cells.size())
                    + ": row skipped";
            });
            continue;
        }
        const auto t = parseNumber<TimeNs>(cells[0]);
        const auto portNo = parseNumber<std::uint16_t>(cells[3]);
        if (!t || !portNo) {
            warn(lineNo, [&] {
                return std::string(!t ? "expected a time in ns in the first column: row skipped"
                                      : "expected a port number in the fourth column: row skipped");
            });
            continue;
        }
        key.assign(cells[1].data(), cells[3].data() + cells[3].size() - cells[1].data());
        auto it = ports.find(key);
        if (it == ports.end()) {
            const auto desc = std::string(cells[1]) + " " + std::string(cells[2]);
            RowPort rp { guidOfHca(desc), *portNo, static_cast<std::uint32_t>(portNames.size()) * columns };
            if (!rp.guid && unknownHcas.insert(desc).second) {
                warn(lineNo, [&] { return "no topology node named \"" + desc + "\": its counters are skipped"; });
            }
            portNames.push_back(desc + " port " + std::string(cells[3]));
            it = ports.emplace(key, rp).first;
        }
        const auto& rp = it->second;
        if (!rp.guid) {
            continue;
        }
        for (std::size_t c = 5; c < header.size(); ++c) {
            if (cells[c].empty() || !kinds[c]) {
                continue;
            }
            if (const auto value = parseNumber<std::uint64_t>(cells[c])) {
                backwards.see(rp.firstSeries + static_cast<std::uint32_t>(c), *t, *value, lineNo, warnings,
                    [&] { return portNames[rp.firstSeries / columns] + " " + header[c]; });
                sink.sample(*rp.guid, rp.port, *kinds[c], *t, *value);
            } else {
                warn(lineNo, [&] {
                    return "column \"" + header[c] + "\": expected a counter value, got \"" + std::string(cells[c])
                        + "\": sample skipped";
                });
            }
        }
    }
    cap.finish(file);
    if (auto cut = reader.cutWarning(file)) {
        warnings.push_back(*cut);
    }
}

} // namespace stallscope
