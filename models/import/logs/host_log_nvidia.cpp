// SPDX-License-Identifier: MIT
// The NVIDIA and PCIe wordings of a host's kernel log and Fabric Manager's error lines (host_log_lines.h,
// docs/formats.md §2d). Each looks for its anchor anywhere in the message, as the other host-log readers do: a
// prefix we do not know ("kernel: ", a journal's process name) is passed over, not a reason to miss the fact.
#include "import/common/line_scan.h"
#include "import/logs/host_log_lines.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace stallscope::host_log {

namespace {

// `needle` (lower case) in `hay`, whatever the case of `hay`: Fabric Manager spells one failure "NVSwitch fatal
// error" in one release and "GPU NVL Fatal error" in another. Lines are at most 4 KiB (TextLines), needles short.
bool hasLower(std::string_view hay, std::string_view needle)
{
    for (std::size_t i = 0; i + needle.size() <= hay.size(); ++i) {
        std::size_t j = 0;
        while (j < needle.size() && std::tolower(static_cast<unsigned char>(hay[i + j])) == needle[j]) {
            ++j;
        }
        if (j == needle.size()) {
            return true;
        }
    }
    return false;
}

// The word before `at` in `body`, without the ": " that ends it: "pcieport 0000:00:01.1: AER: " → "0000:00:01.1".
std::string_view wordBefore(std::string_view body, std::size_t at)
{
    auto head = body.substr(0, at);
    while (!head.empty() && (head.back() == ' ' || head.back() == ':')) {
        head.remove_suffix(1);
    }
    const auto space = head.rfind(' ');
    return space == std::string_view::npos ? head : head.substr(space + 1);
}

// The address after "pcieport " (AER's detail lines name the port first): "" when the line names none.
std::string_view portAfter(std::string_view body)
{
    LineScan s(body);
    if (!s.skipPast("pcieport ")) {
        return {};
    }
    auto addr = s.until(" ");
    if (addr.ends_with(':')) {
        addr.remove_suffix(1);
    }
    return addr;
}

} // namespace

std::string pciName(std::string_view text)
{
    if (text.starts_with("PCI:")) {
        text.remove_prefix(4);
    }
    if (text.size() > 8 && text[8] == ':' && text.starts_with("0000")) {
        text.remove_prefix(4);
    }
    std::string name(text.substr(0, 16)); // "0000:c1:00.0" is 12: a longer one is not an address, kept short
    if (name.find('.') == std::string::npos) {
        name += ".0";
    }
    return name;
}

std::optional<std::pair<std::string, std::string>> gpuUuidLine(std::string_view body)
{
    LineScan s(body);
    if (!s.skipPast("NVRM: GPU at ")) {
        return std::nullopt;
    }
    const auto at = s.pos();
    if (!s.skipPast(": GPU-")) {
        return std::nullopt;
    }
    const auto device = body.substr(at, s.pos() - 6 - at);
    const auto uuid = s.word();
    if (uuid.empty() || device.size() > 32) {
        return std::nullopt;
    }
    return std::pair(pciName(device), "GPU-" + std::string(uuid.substr(0, 40)));
}

Read gpuOffBus(std::string_view body, HostEvent& e)
{
    LineScan s(body);
    // nvidia-smi's own words for a GPU gone from the bus: "Unable to determine the device handle for GPU0000:3B:00.0:
    // GPU is lost.  Reboot the system to recover this GPU" (the space before the address comes and goes).
    if (s.skipPast("Unable to determine the device handle for GPU")) {
        s.skipSpaces();
        const auto rest = s.rest();
        const auto end = rest.find(": ");
        if (end == std::string_view::npos || end > 32) {
            return Read::Used;
        }
        if (!rest.substr(end + 2).starts_with("GPU is lost")) {
            return Read::Used; // "Unknown Error": the GPU did not answer, for a reason not said
        }
        e.kind = HostEventKind::GpuOffBus;
        std::string pci(rest.substr(0, end)); // nvidia-smi prints the address in capitals, the kernel does not
        std::transform(pci.begin(), pci.end(), pci.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        e.device = pciName(pci);
        e.text = "GPU is lost (nvidia-smi)";
        return Read::Fact;
    }
    s.seek(0);
    if (!s.skipPast("NVRM: GPU ") || s.lit("at ")) {
        return Read::No;
    }
    if (s.lit("Board")) {
        return Read::Used; // "GPU Board Serial Number: …": the GPU named before its fault
    }
    const auto device = s.until(" ");
    if (!device.ends_with(':')) {
        return Read::No; // "NVRM: GPU has ..." and the like: not a line about one GPU
    }
    s.skipSpaces();
    if (!s.rest().starts_with("GPU has fallen off the bus")) {
        return Read::Used; // "GPU serial number is …": the same GPU's identity
    }
    e.kind = HostEventKind::GpuOffBus;
    e.device = pciName(device.substr(0, device.size() - 1));
    e.text = "GPU has fallen off the bus";
    return Read::Fact;
}

Read sxid(std::string_view body, HostEvent& e)
{
    LineScan s(body);
    if (!s.skipPast("SXid (")) {
        return Read::No;
    }
    const auto anchor = s.pos() - 6;
    const auto pci = s.until(")");
    if (!s.lit("): ")) {
        return Read::Damaged;
    }
    const auto code = s.digits(9);
    if (code.empty()) {
        return Read::Damaged;
    }
    s.lit(", ");
    e.code = toNumber<std::int64_t>(code);
    const auto sw = wordBefore(body, anchor); // "nvidia-nvswitch2"
    e.device = (sw.empty() ? std::string() : std::string(sw) + " ") + pciName(pci);
    // A paste may hold only an SXid's "Data {…}" lines (a grep, a `dmesg --level err`): each is a fact of unknown
    // severity. The reader drops it when the same switch's severity line for that SXid came before it.
    if (s.lit("Data")) {
        e.kind = HostEventKind::SxidUnknown;
        e.text = "SXid " + std::string(code) + ", severity not in the log";
        return Read::Fact;
    }
    // The severity line carries the fact; "Severity 0 Engine instance …" repeats the SXid.
    const bool fatal = s.lit("Fatal");
    if (!fatal && !s.lit("Non-fatal")) {
        return Read::Used;
    }
    s.lit(", ");
    e.kind = fatal ? HostEventKind::SxidFatal : HostEventKind::SxidNonFatal;
    e.text = "SXid " + std::string(code) + (fatal ? ", fatal" : ", non-fatal")
        + (s.atEnd() ? std::string() : ": " + clipped(s.rest()));
    return Read::Fact;
}

Read pcieAer(std::string_view body, HostEvent& e)
{
    if (body.find("Surprise Down") != std::string_view::npos || body.find("] SDES") != std::string_view::npos) {
        e.kind = HostEventKind::PcieLinkDown;
        e.device = std::string(portAfter(body));
        e.text = "PCIe Surprise Down: the link to the device behind this port went down";
        return Read::Fact;
    }
    // AER's detail lines under an error: its severity and type, the status registers, one line per error bit.
    if (body.find("PCIe Bus Error: ") != std::string_view::npos
        || body.find("error status/mask=") != std::string_view::npos
        || (!portAfter(body).empty() && body.find(":    [") != std::string_view::npos)) {
        return Read::Used;
    }
    const auto at = body.find("AER: ");
    if (at == std::string_view::npos) {
        return Read::No;
    }
    const auto what = body.substr(at + 5);
    if (what.find("error received") == std::string_view::npos
        && what.find("error message received") == std::string_view::npos) {
        return Read::Used; // "can't recover", "device recovery failed", "TLP Header": the same error's story
    }
    const bool uncorrected = what.find("Uncorrect") != std::string_view::npos;
    e.kind = uncorrected ? HostEventKind::PcieUncorrected : HostEventKind::PcieCorrected;
    e.code = uncorrected ? (what.find("Non-Fatal") == std::string_view::npos ? 1 : 0) : -1;
    e.device = std::string(wordBefore(body, at));
    e.text = "AER: " + clipped(what);
    return Read::Fact;
}

Read pciehp(std::string_view body, HostEvent& e)
{
    const auto at = body.find("pciehp");
    if (at == std::string_view::npos) {
        return Read::No;
    }
    LineScan s(body, at);
    if (!s.skipPast("Slot(")) {
        return Read::Used;
    }
    const auto slot = s.until(")");
    if (!s.lit("): ")) {
        return Read::Damaged;
    }
    const auto what = s.rest();
    if (!what.starts_with("Link Down") && !what.starts_with("Card not present")) {
        return Read::Used; // Link Up, Card present, attention button
    }
    e.kind = HostEventKind::PcieLinkDown;
    e.device = std::string(wordBefore(body, at));
    e.text = "pciehp slot " + clipped(slot) + ": " + clipped(what);
    return Read::Fact;
}

Read libSegfault(std::string_view body, HostEvent& e)
{
    const auto at = body.find(": segfault at ");
    if (at == std::string_view::npos) {
        return Read::No;
    }
    LineScan s(body, at);
    s.skipPast(" error ");
    const auto error = s.digits(4);
    if (!s.skipPast(" in ")) {
        return Read::Used; // a segfault the kernel did not place in a library
    }
    const auto lib = s.until("[ ");
    static constexpr std::array<std::string_view, 3> kGpuLibs = { "libnccl", "libcu", "libnvidia" };
    if (std::none_of(kGpuLibs.begin(), kGpuLibs.end(), [&](std::string_view l) { return lib.starts_with(l); })) {
        return Read::Used;
    }
    const auto process = wordBefore(body, at); // "python[1234]" or "pt_main_thread[88]"
    if (const auto open = process.find('['); open != std::string_view::npos) {
        LineScan pid(process, open + 1);
        e.code = pid.number<std::int64_t>().value_or(-1);
    }
    e.kind = HostEventKind::LibSegfault;
    e.device = std::string(lib);
    e.text = clipped(process, " \t", 60) + " segfault in " + clipped(lib, " \t", 60)
        + (error.empty() ? std::string() : " (error " + std::string(error) + ")");
    return Read::Fact;
}

Read peermem(std::string_view body, HostEvent& e)
{
    const auto at = body.find("nvidia-peermem ");
    if (at == std::string_view::npos) {
        return Read::No;
    }
    const auto what = body.substr(at + 15);
    if (what.find("ERROR") == std::string_view::npos) {
        return Read::Used;
    }
    e.kind = HostEventKind::PeermemError;
    e.text = "nvidia-peermem " + clipped(what);
    return Read::Fact;
}

namespace {

// The failures Fabric Manager names, in the order they are tried (a fatal NVSwitch error that mentions a trunk
// port is the NVSwitch error). Case-insensitive; all of a row's words must be in the line.
struct FmWording
{
    HostEventKind kind;
    std::array<std::string_view, 3> words; // "" = unused
    std::string_view notWith; // a word that makes it another row's ("non-fatal" in a fatal error's wording)
};

constexpr std::array<FmWording, 10> kFmWordings = { {
    { HostEventKind::FmNvSwitchNonFatal, { "nvswitch", "non-fatal error", "" }, "" },
    { HostEventKind::FmNvSwitchNonFatal, { "nvswitch", "non fatal error", "" }, "" },
    { HostEventKind::FmNvSwitchFatal, { "nvswitch", "fatal error", "" }, "" },
    { HostEventKind::FmGpuNvlink, { "detected", "gpu nvl", "error" }, "" },
    { HostEventKind::FmTrunkLink, { "trunk", "fail", "" }, "" },
    { HostEventKind::FmNvlinkTraining, { "training", "fail", "" }, "" },
    { HostEventKind::FmNvlinkDown, { "nvlink", "down", "" }, "" },
    { HostEventKind::FmStopped, { "exiting", "", "" }, "" },
    { HostEventKind::FmStopped, { "terminat", "", "" }, "not terminat" },
    { HostEventKind::FmStopped, { "shutting down", "", "" }, "" },
} };

// "… on NVSwitch pci bus id 00000000:86:00.0 physical id 3 port 61" → "0000:86:00.0 port 61".
std::string fmDevice(std::string_view msg)
{
    LineScan s(msg);
    if (!s.skipPast("pci bus id ")) {
        return {};
    }
    std::string device = pciName(s.until(" "));
    if (s.skipPast(" port ")) {
        if (const auto port = s.digits(4); !port.empty()) {
            device += " port " + std::string(port);
        }
    }
    return device;
}

} // namespace

bool fabricManagerFact(std::string_view level, std::string_view msg, HostEvent& e)
{
    // A journal's copy says no level: Fabric Manager prints its failures and its milestones ("Connected to 1
    // node.", "Successfully configured all the available NVSwitches …") there; a line saying it failed or erred
    // is an error.
    const bool said = !level.empty();
    const bool error = said ? level == "ERROR" || level == "FATAL" || level == "CRITICAL"
                            : hasLower(msg, "error") || hasLower(msg, "fail");
    if (said && !error && level != "WARNING" && level != "WARN") {
        return false;
    }
    e.kind = HostEventKind::FmError;
    bool named = false;
    for (const auto& w : kFmWordings) {
        const bool all = std::all_of(
            w.words.begin(), w.words.end(), [&](std::string_view word) { return word.empty() || hasLower(msg, word); });
        if (all && (w.notWith.empty() || !hasLower(msg, w.notWith))) {
            e.kind = w.kind;
            named = true;
            break;
        }
    }
    if (!named && !error) {
        return false; // a warning about something else (a slow response, a retried request)
    }
    if (e.kind == HostEventKind::FmNvSwitchFatal || e.kind == HostEventKind::FmNvSwitchNonFatal) {
        LineScan s(msg);
        if (s.skipPast("error ")) {
            if (const auto code = s.digits(9); !code.empty()) {
                e.code = toNumber<std::int64_t>(code);
            }
        }
    }
    e.device = fmDevice(msg);
    e.text = clipped(msg);
    return true;
}

bool namesFabricManagerUnit(std::string_view msg)
{
    return hasLower(msg, "nvidia-fabricmanager") || hasLower(msg, "fabric manager service");
}

bool fabricManagerUnit(std::string_view msg, HostEvent& e)
{
    // systemd's words (src/core): "Failed to start …", "<unit>: Failed with result '…'", "<unit>: Main process
    // exited, code=exited, status=1/FAILURE" (also "Control process"); a status of 0 is a clean stop.
    const bool failed = hasLower(msg, "failed to start") || hasLower(msg, "failed with result")
        || (hasLower(msg, "process exited") && !hasLower(msg, "status=0/"));
    if (!failed) {
        return false; // Starting, Started, Stopping, Stopped, Deactivated successfully
    }
    e.kind = HostEventKind::FmStopped;
    e.text = clipped(msg);
    return true;
}

void fabricManagerField(std::string_view line, HostEvent& record)
{
    LineScan s(line);
    s.skipSpaces();
    const auto key = s.word();
    s.skipSpaces();
    if (!s.lit(":")) {
        return;
    }
    s.skipSpaces();
    const auto value = s.word();
    if (value.empty() || record.text.size() > 200 || (key != "gpuGuid" && key != "portNum")) {
        return;
    }
    // "… GPU NVL Fatal error on :" says its subject on the lines after: "… error on GPU 0x… port 11".
    if (record.text.ends_with(" :")) {
        record.text.resize(record.text.size() - 2);
    }
    if (key == "gpuGuid") {
        record.device = "GPU " + std::string(value.substr(0, 20));
        record.text += " " + record.device;
    } else {
        record.text += " port " + std::string(value.substr(0, 8));
    }
}

} // namespace stallscope::host_log
