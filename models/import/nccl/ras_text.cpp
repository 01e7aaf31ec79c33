// SPDX-License-Identifier: MIT
// RAS's text output (NCCL src/ras/client_support.cc): the status a query prints and monitor mode's event lines.
// Read by LineScan, one line at a time, by the blocks the status is made of.
#include "import/nccl/ras_status.h"

#include "import/common/line_scan.h"
#include "import/common/text_lines.h"

#include <algorithm>
#include <map>

namespace stallscope {

namespace {

enum class Block { None, Dead, JobIncomplete, CommIncomplete, CommMismatch, CommError, Other };

struct State
{
    State(RasReport& o, const LogClock& c)
        : out(o)
        , clock(c)
    {
    }
    RasReport& out;
    const LogClock& clock;
    bool summaryNext = false; // the job summary's numbers follow its two header lines
    int totalsColumns = 0; // the totals row follows a header line starting "(total)": 5 columns, or 3 (2.27+)
    std::map<std::int64_t, std::uint32_t> groupSize; // communicator table: group # → ranks per communicator
    Block block = Block::None;
    std::string comm;
    std::uint32_t commSize = 0;
    std::string opName = "operation"; // "AllReduce" in "… different AllReduce operation counts"
    std::int64_t pendingOps = -1, blockMaxOps = -1; // the count group the next Rank lines belong to
    std::string pendingLabel; // "status ABORT", "reported remote process exited …"
    std::size_t blockFirstFact = 0;
};

// "Process 3487984 on node 172.16.64.213 managing GPU 5" (also GPUs "0,1") at the cursor.
bool process(LineScan& s, RasFact& f)
{
    if (!s.lit("Process ")) {
        return false;
    }
    f.pid = s.number<std::int64_t>().value_or(-1);
    if (!s.lit(" on node ")) {
        return false;
    }
    f.host = std::string(s.until(" "));
    if (s.lit(" managing GPU")) {
        s.lit("s");
        s.skipSpaces();
        f.gpu = std::string(s.until(" \t"));
    }
    return true;
}

// " -- GPU 5 managed by process 483077 on node 172.16.64.210" or " -- [process information not found]".
void rankPlace(LineScan& s, RasFact& f)
{
    if (!s.skipPast("-- GPU ")) {
        return;
    }
    f.gpu = std::string(s.until(" "));
    if (s.skipPast("managed by process ")) {
        f.pid = s.number<std::int64_t>().value_or(-1);
        if (s.lit(" on node ")) {
            f.host = std::string(s.until(" \t"));
        }
    }
}

std::string commText(const State& st)
{
    return "communicator " + st.comm + (st.commSize ? " (" + std::to_string(st.commSize) + " ranks)" : "");
}

void addFact(State& st, RasFact f, std::int64_t line)
{
    f.line = line;
    f.comm = f.comm.empty() ? st.comm : f.comm;
    f.commSize = f.commSize ? f.commSize : st.commSize;
    st.out.facts.push_back(std::move(f));
}

// Rank lines of a communicator block: what they are depends on the block and the count line above them.
void rankLine(State& st, LineScan& s, std::int64_t line)
{
    RasFact f;
    f.rank = s.number<std::int64_t>().value_or(-1);
    if (f.rank < 0) {
        return;
    }
    const auto who = "rank " + std::to_string(f.rank) + " of " + commText(st);
    if (s.lit(" has launched up to operation ")) {
        st.pendingOps = s.number<std::int64_t>().value_or(-1);
    } else if (s.lit(" has not launched any operations")) {
        st.pendingOps = 0;
    } else if (s.lit(" has status ")) {
        st.pendingLabel = "status " + std::string(s.until(" "));
    } else if (s.lit(" reported ")) {
        const auto at = s.line().find(" -- ", s.pos());
        st.pendingLabel
            = "reported " + std::string(s.line().substr(s.pos(), at == std::string_view::npos ? 200 : at - s.pos()));
    }
    rankPlace(s, f);
    switch (st.block) {
    case Block::CommIncomplete:
        f.kind = RasFactKind::Missing;
        f.text = who + ": missing (RAS got no data from it)";
        break;
    case Block::CommMismatch:
        if (st.pendingOps >= 0) {
            f.kind = RasFactKind::Behind; // settled against the block's highest count when the block ends
            f.ops = st.pendingOps;
            f.text = who + ": launched up to " + st.opName + " " + std::to_string(f.ops);
        } else {
            f.kind = RasFactKind::Status;
            f.text = who + ": " + st.pendingLabel;
        }
        break;
    case Block::CommError:
        f.kind = RasFactKind::AsyncError;
        f.text = who + ": " + (st.pendingLabel.empty() ? "reported an error" : st.pendingLabel);
        break;
    default:
        return;
    }
    addFact(st, std::move(f), line);
}

// A mismatch block's Rank lines name the outlier group: behind when below the block's highest count, else ahead.
void closeBlock(State& st)
{
    if (st.block == Block::CommMismatch && st.blockMaxOps >= 0) {
        for (auto i = st.blockFirstFact; i < st.out.facts.size(); ++i) {
            auto& f = st.out.facts[i];
            if (f.kind == RasFactKind::Behind && f.ops >= st.blockMaxOps) {
                f.kind = RasFactKind::Status;
                f.text += " (ahead of the others)";
            } else if (f.kind == RasFactKind::Behind) {
                f.text += " while others reached " + std::to_string(st.blockMaxOps);
            }
        }
    }
    st.block = Block::None;
    st.comm.clear();
    st.commSize = 0;
    st.pendingOps = st.blockMaxOps = -1;
    st.pendingLabel.clear();
    st.opName = "operation";
    st.blockFirstFact = st.out.facts.size();
}

// "#0-0 (cf264af53edbe986) INCOMPLETE" (also "MISMATCH", "ERROR").
void commHeader(State& st, LineScan& s)
{
    closeBlock(st);
    const auto group = s.number<std::int64_t>().value_or(-1);
    if (!s.lit("-") || !s.number<std::int64_t>() || !s.lit(" (")) {
        return;
    }
    st.comm = canonicalCommHash(s.until(")"));
    s.lit(")");
    s.skipSpaces();
    const auto kind = s.rest();
    st.block = kind.find("INCOMPLETE") == 0 ? Block::CommIncomplete
        : kind.find("MISMATCH") == 0        ? Block::CommMismatch
        : kind.find("ERROR") == 0           ? Block::CommError
                                            : Block::Other;
    if (auto it = st.groupSize.find(group); it != st.groupSize.end()) {
        st.commSize = it->second;
    }
}

void indented(State& st, LineScan& s, std::int64_t line)
{
    RasFact f;
    if (process(s, f)) {
        if (st.block == Block::Dead || st.block == Block::JobIncomplete) {
            f.kind = st.block == Block::Dead ? RasFactKind::Dead : RasFactKind::Unresponsive;
            f.text = "process " + std::to_string(f.pid) + " on " + f.host + " (GPU " + f.gpu + "): "
                + (st.block == Block::Dead ? "considered dead (unreachable via the RAS network)"
                                           : "sent no communicator data");
            addFact(st, std::move(f), line);
        }
        return;
    }
    if (s.lit("Rank ")) {
        rankLine(st, s, line);
        return;
    }
    if (s.lit("The missing rank")) { // NCCL 2.24: "The missing rank: 21" / "The missing ranks: 3, 21"
        s.skipPast(":");
        while (!s.atEnd()) {
            s.skipSpaces();
            s.lit(",");
            s.skipSpaces();
            const auto r = s.number<std::int64_t>();
            if (!r) {
                break;
            }
            RasFact m;
            m.kind = RasFactKind::Missing;
            m.rank = *r;
            m.text = "rank " + std::to_string(*r) + " of " + commText(st) + ": missing (RAS got no data from it)";
            addFact(st, std::move(m), line);
        }
        return;
    }
    if (s.lit("Communicator ranks have different ")) {
        const auto what = s.until(" ");
        st.opName = what == "status" ? "status" : std::string(what);
        return;
    }
    const auto count = s.number<std::int64_t>();
    if (!count) {
        return;
    }
    if (s.lit(" ranks have launched up to operation ") || s.lit(" rank has launched up to operation ")) {
        st.pendingOps = s.number<std::int64_t>().value_or(-1);
        st.blockMaxOps = std::max(st.blockMaxOps, st.pendingOps);
    } else if (s.lit(" ranks have not launched any operations")) {
        st.pendingOps = 0;
        st.blockMaxOps = std::max<std::int64_t>(st.blockMaxOps, 0);
    } else if (s.lit(" ranks have status ")) {
        st.pendingOps = -1;
        st.pendingLabel = "status " + std::string(s.until(" "));
    } else if (s.lit(" ranks reported ")) {
        st.pendingLabel = "reported " + std::string(s.rest().substr(0, 200));
    }
}

// "[2025-12-19 13:07:07] PEER_DEAD: Process 1524345 on node 172.16.64.245 managing GPU 1".
bool monitorLine(State& st, LineScan& s, std::int64_t line)
{
    if (!s.lit("[")) {
        return false;
    }
    const auto stamp = s.until("]");
    if (!s.lit("] ")) {
        return false;
    }
    const auto event = s.until(":");
    if (event.substr(0, 5) != "PEER_" || !s.lit(":")) {
        return false;
    }
    st.out.form = "monitor";
    RasFact f;
    f.timeNs = rasTimeNs(stamp, st.clock);
    f.kind = event == "PEER_DEAD"      ? RasFactKind::Dead
        : event == "PEER_UNRESPONSIVE" ? RasFactKind::Unresponsive
                                       : RasFactKind::PeerEvent;
    s.skipSpaces();
    const auto detailsAt = s.pos();
    process(s, f);
    f.text = std::string(event) + ": " + std::string(s.line().substr(detailsAt, 200));
    addFact(st, std::move(f), line);
    return true;
}

void topLine(State& st, LineScan& s, std::int64_t line)
{
    if (s.lit("(total)")) {
        // "(total)   per node  per process    (total)  (total)" (one table), or NCCL 2.27's separate totals
        // table "(total)    (total)      (total)" after per-node rows.
        st.totalsColumns = s.line().find("per node") != std::string_view::npos ? 5 : 3;
    } else if (s.lit("NCCL version ")) {
        st.out.ncclVersion = std::string(s.until(" ").substr(0, 40));
    } else if (s.lit("Job summary")) {
        closeBlock(st);
        st.summaryNext = true;
    } else if (s.lit("Group     Comms")) {
        st.summaryNext = false;
    } else if (s.lit("Errors") || s.lit("Warnings")) {
        closeBlock(st);
    } else if (s.lit("DEAD")) {
        closeBlock(st);
        st.block = Block::Dead;
    } else if (s.lit("INCOMPLETE")) {
        closeBlock(st);
        st.block = Block::JobIncomplete;
    } else if (s.lit("TIMEOUT") || s.lit("RAS ")) {
        closeBlock(st);
        st.block = Block::Other;
    } else if (s.lit("#")) {
        commHeader(st, s);
    } else {
        monitorLine(st, s, line);
    }
}

// A numbers-only row: the job summary ("4  8  1  32  32") or the communicator table ("0  8  4  1  4  32  RUNNING  OK").
void tableRow(State& st, std::string_view row)
{
    std::vector<std::string_view> tok;
    LineScan s(row);
    while (!s.atEnd() && tok.size() < 10) {
        s.skipSpaces();
        const auto t = s.until(" \t");
        if (!t.empty()) {
            tok.push_back(t);
        }
    }
    if (st.summaryNext && st.totalsColumns > 0 && tok.size() == std::size_t(st.totalsColumns)) {
        const bool five = st.totalsColumns == 5;
        st.out.nodes = parseNumber<std::uint32_t>(tok[0]).value_or(0);
        st.out.processes = parseNumber<std::uint32_t>(tok[five ? 3 : 1]).value_or(0);
        st.out.gpus = parseNumber<std::uint32_t>(tok[five ? 4 : 2]).value_or(0);
        st.summaryNext = false;
    } else if (tok.size() == 8) {
        const auto group = parseNumber<std::int64_t>(tok[0]);
        const auto comms = parseNumber<std::uint32_t>(tok[1]);
        const auto size = parseNumber<std::uint32_t>(tok[4]);
        if (group && comms && size) {
            st.groupSize[*group] = *size;
            st.out.communicators += *comms;
        }
    }
}

} // namespace

Result<RasReport> parseRasText(const std::string& file, const std::string& text, const LogClock& clock)
{
    RasReport out;
    out.form = "status";
    State st(out, clock);
    bool any = false;
    auto stop = readLines(text, file, out.warnings, [&](const std::string& line, std::int64_t no) {
        if (line.empty()) {
            return;
        }
        LineScan s(line);
        if (line[0] == ' ') {
            s.skipSpaces();
            if (std::isdigit(static_cast<unsigned char>(s.peek()))
                && (st.summaryNext || line.find_first_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ") != std::string::npos)
                && line.find("ranks") == std::string::npos && line.find("rank ") == std::string::npos) {
                tableRow(st, line);
                return;
            }
            indented(st, s, no);
            return;
        }
        any = any || line.rfind("Job summary", 0) == 0 || line.rfind("Communicators", 0) == 0
            || line.rfind("RAS Monitor", 0) == 0 || line[0] == '[';
        if (std::isdigit(static_cast<unsigned char>(line[0]))) {
            tableRow(st, line);
            return;
        }
        topLine(st, s, no);
    });
    closeBlock(st);
    if (stop) {
        return *stop;
    }
    if (!any && out.facts.empty()) {
        return LoadIssue { file, 0, -1,
            "expected NCCL RAS output (\"Job summary\", \"Communicators...\" or "
            "\"[date time] PEER_…:\" monitor lines), found none" };
    }
    return out;
}

} // namespace stallscope
