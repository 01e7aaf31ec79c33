// SPDX-License-Identifier: MIT
// UCX's mlx5 completion errors (docs/formats.md §2b): Open MPI, UCC and NCCL's UCX plugin report a failed work
// request through uct_ib_mlx5_completion_with_err, not through NCCL's "Got completion" line. The same failure on the
// wire, so it becomes the same fact: a completion error with the HCA, its ibv_wc status and the vendor syndrome.
#include "import/common/line_scan.h"
#include "import/logs/rank_log_messages.h"

#include <algorithm>
#include <cstdio>

namespace stallscope::logs {

namespace {

constexpr std::size_t kMaxText = 240;

// "0x15" → 21; at most 8 hex digits, so a damaged syndrome cannot overflow.
std::optional<int> hexAfter(LineScan& s, std::string_view mark)
{
    if (!s.skipPast(mark)) {
        return std::nullopt;
    }
    const auto h = s.hexDigits(8);
    if (h.empty()) {
        return std::nullopt;
    }
    std::int64_t v = 0;
    for (const char ch : h) {
        v = v * 16 + (ch <= '9' ? ch - '0' : (ch | 0x20) - 'a' + 10);
    }
    return static_cast<int>(v & 0x7fffffff);
}

// The mlx5 CQE syndrome as the ibv_wc_status it is reported as (rdma-core providers/mlx5 mlx5_handle_error_cqe),
// so that UCX's 0x15 reads as NCCL's status 12 (transport retries exhausted).
int wcStatusOf(int syndrome)
{
    switch (syndrome) {
    case 0x01:
        return 1; // local length
    case 0x02:
        return 2; // local QP operation
    case 0x04:
        return 4; // local protection
    case 0x05:
        return 5; // work request flushed
    case 0x06:
        return 6; // memory window bind
    case 0x10:
        return 7; // bad response
    case 0x11:
        return 8; // local access
    case 0x12:
        return 9; // remote invalid request
    case 0x13:
        return 10; // remote access
    case 0x14:
        return 11; // remote operation
    case 0x15:
        return 12; // transport retry count exceeded
    case 0x16:
        return 13; // receiver-not-ready retry count exceeded
    case 0x22:
        return 14; // remote aborted
    default:
        return 21; // IBV_WC_GENERAL_ERR
    }
}

// UCX's own prefix before the file name: "[1700000000.123456] [gpu-c012:4242:0]" (UCX ≥ 1.10, with the time) or
// "[gpu-c012:4242:0:4250]" (older). Takes the host, the pid and the time when there.
void readUcxPrefix(std::string_view head, LogEvent& e, MessageState& c, std::string& pid)
{
    // UCX's prefix stands just before its file name; looking no further back keeps a line of many '[' linear.
    constexpr std::size_t kPrefixReach = 160;
    head.remove_prefix(head.size() > kPrefixReach ? head.size() - kPrefixReach : 0);
    for (std::size_t open = head.find('['); open != std::string_view::npos; open = head.find('[', open + 1)) {
        LineScan s(head, open + 1);
        if (const auto sec = s.digits(12); !sec.empty() && s.lit(".")) {
            const auto frac = s.digits(9);
            if (s.lit("]") && e.timeNs == kNoTime) {
                std::string f(frac);
                f.resize(9, '0');
                const auto secs = parseNumber<TimeNs>(sec);
                const auto ns = parseNumber<TimeNs>(f);
                if (secs && ns && *secs < 4'000'000'000LL) {
                    e.timeNs = *secs * 1'000'000'000LL + *ns;
                }
            }
            continue;
        }
        s.seek(open + 1);
        const auto host = s.until(":] ");
        if (host.empty() || !s.lit(":")) {
            continue;
        }
        const auto p = s.digits(10);
        s.skipSpaces(); // UCX 1.5 pads the pid: "[ast1815:6807 :0:6807]"
        if (p.empty() || !(s.peek() == ':' || s.peek() == ']')) {
            continue;
        }
        pid = std::string(p);
        if (c.f.host.empty()) {
            c.f.host = std::string(host);
        }
    }
}

} // namespace

// "[1700000000.123456] [gpu-c012:4242:0]  ib_mlx5_log.c:179  UCX  ERROR Transport retry count exceeded on
// mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)" (UCX ≥ 1.6), "... ib_mlx5_log.c:115  FATAL: Error on mlx5_3:1 QP
// 0xe6d7 wqe[7821]: Transport retry count exceeded (synd 0x15 vend 0x81) opcode SEND" (UCX 1.5), and the detail
// line that follows ("RC QP 0x1a2b wqe[17]: RDMA_WRITE ..."), which is taken into the error it completes.
Read ucxCompletion(std::string_view body, LogEvent& e, MessageState& c)
{
    const auto at = body.find("ib_mlx5_log.c:");
    if (at == std::string_view::npos) {
        return Read::Nothing;
    }
    LineScan s(body, at);
    const auto synd = body.find("(synd 0x", at);
    if (synd == std::string_view::npos) {
        // The detail line: the QP and the operation that failed.
        if (const auto qp = body.find(" QP 0x", at); qp != std::string_view::npos && !c.f.events.empty()
            && c.f.events.back().kind == LogEventKind::CompletionError && c.f.events.back().peer.empty()
            && c.f.events.back().text.starts_with("UCX") && c.f.events.back().text.find(" QP ") == std::string::npos) {
            auto from = qp;
            while (from > at && body[from - 1] != ' ') {
                --from; // "RC", "DCI", "DCT"
            }
            auto& last = c.f.events.back().text;
            last = stallscope::clipped(last + "; " + std::string(body.substr(from)), " ", kMaxText);
        }
        return Read::Done;
    }
    std::string pid;
    readUcxPrefix(body.substr(0, at), e, c, pid);
    if (e.timeNs != kNoTime) {
        c.f.firstNs = c.f.firstNs == kNoTime ? e.timeNs : std::min(c.f.firstNs, e.timeNs);
        c.f.lastNs = c.f.lastNs == kNoTime ? e.timeNs : std::max(c.f.lastNs, e.timeNs);
    }
    // The message: after the file:line, the level words UCX prints ("UCX  ERROR", "FATAL:") are skipped.
    s.skipPast(":");
    s.digits();
    s.skipSpaces();
    for (std::string_view level : { "UCX", "ERROR", "FATAL:", "WARN" }) {
        if (s.lit(level)) {
            s.skipSpaces();
        }
    }
    auto msg = body.substr(s.pos(), synd - s.pos());
    while (!msg.empty() && msg.back() == ' ') {
        msg.remove_suffix(1);
    }
    // "<kind> on mlx5_0:1/IB" or "Error on mlx5_3:1 QP 0xe6d7 wqe[7821]: <kind>"
    std::string_view kind = msg;
    std::string_view device;
    if (const auto on = msg.find(" on "); on != std::string_view::npos) {
        LineScan d(msg, on + 4);
        device = d.until(" ");
        kind = msg.substr(0, on);
        if (const auto colon = d.rest().find(": "); kind == "Error" && colon != std::string_view::npos) {
            kind = d.rest().substr(colon + 2);
        }
    }
    const auto hca = device.substr(0, device.find(':'));
    if (hca.empty()) {
        return Read::Done; // no HCA named: UCX's line, but nothing to point at
    }
    e.kind = LogEventKind::CompletionError;
    e.hca = std::string(hca);
    LineScan v(body, synd);
    const auto syndrome = hexAfter(v, "synd 0x");
    e.status = wcStatusOf(syndrome.value_or(-1));
    if (const auto vend = hexAfter(v, "vend 0x")) {
        e.vendorErr = *vend;
    }
    std::string text = "UCX " + std::string(kind) + " on " + std::string(device);
    if (syndrome) {
        char hex[16];
        std::snprintf(hex, sizeof hex, "0x%x", static_cast<unsigned>(*syndrome));
        text += std::string(" (synd ") + hex + ")";
    }
    if (!pid.empty()) {
        text += ", pid " + pid;
    }
    e.text = stallscope::clipped(text, " ", kMaxText);
    c.f.events.push_back(e);
    return Read::Done;
}

// Open MPI's UCX messaging layer: "[gpu-c011:6102] pml_ucx.c:865  Error: ucx send failed: Connection reset by remote
// peer" (also "ucp_ep_create ... failed: ..."). The peer's process or its link is gone: a socket-level error fact,
// with the message as its text, as NCCL's bootstrap socket errors are.
Read ompiUcxError(std::string_view body, LogEvent& e, MessageState& c)
{
    const auto at = body.find("pml_ucx.c:");
    if (at == std::string_view::npos) {
        return Read::Nothing;
    }
    std::string pid;
    readUcxPrefix(body.substr(0, at), e, c, pid);
    LineScan s(body, at + 10);
    s.digits();
    s.skipSpaces();
    if (!s.lit("Error:")) {
        return Read::Done; // its other lines (warnings, verbose output) say nothing about a failure
    }
    s.skipSpaces();
    e.kind = LogEventKind::SocketError;
    e.text = stallscope::clipped(
        "Open MPI pml_ucx: " + std::string(s.rest()) + (pid.empty() ? "" : ", pid " + pid), " .", kMaxText);
    c.f.events.push_back(e);
    return Read::Done;
}

} // namespace stallscope::logs
