// SPDX-License-Identifier: MIT
#pragma once

// Prometheus text exposition snapshots (a scrape saved to a file, or a textfile-collector .prom file) of
// InfiniBand port counters, from the three exporters engineers run (docs/formats.md §4c, §4e):
// - node_exporter on each host: node_infiniband_<counter>_total{device, port[, instance]} — the HCA end.
//   The host is the instance label, else node_uname_info's nodename, else the file name up to its first dot.
// - treydock/infiniband_exporter: infiniband_{switch,hca}_port_<counter>_total{guid, port}; names and far
//   ends from infiniband_{switch,hca}_info and _uplink_info series, which also describe the fabric.
// - guilbaults/infiniband-exporter: infiniband_<ibqueryerrors counter>_total{local_guid, local_name,
//   local_port, remote_guid, remote_name, remote_port} — one series per cable end, the link on every sample.
// Sample time: the sample's own timestamp (ms), else the last stamp line before it (import/common/sample_stamp.h), else
// none (the caller dates the file by its modification time and says so).

#include "core/counters.h"
#include "core/result.h"
#include "import/common/fabric_builder.h"

#include <string>
#include <string_view>
#include <vector>

namespace stallscope {

struct ExpositionSample
{
    bool hostSide = false; // node_exporter: joined by host + device; otherwise by GUID
    std::string host, device; // host side
    std::uint64_t guid = 0; // fabric side: the port's node (canonical in the builder)
    std::uint16_t port = 1;
    CounterKind kind = CounterKind::LinkDowned;
    TimeNs timeNs = kNoTime;
    std::uint64_t value = 0; // raw, in the model's units (data in 4-byte words)
    std::int64_t line = 0;
    std::uint32_t series = 0; // index into ExpositionFile::series
};

// One reading of a series: what a scrape file holds millions of, so 32 bytes and no strings.
struct ExpositionPoint
{
    std::uint32_t series = 0; // index into ExpositionFile::series
    TimeNs timeNs = kNoTime;
    std::uint64_t value = 0; // in the model's units
    std::int64_t line = 0;
};

// A host port's state as node_exporter reports it (node_infiniband_state_id: 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE;
// node_infiniband_physical_state_id: 2 POLLING, 3 DISABLED, 5 LINK_UP, 6 LINK_ERROR_RECOVERY). Scrapes over time
// turn its changes into link events.
struct ExpositionState
{
    std::string host, device;
    std::uint16_t port = 1;
    TimeNs timeNs = kNoTime;
    bool up = true; // ACTIVE (logical), or LINK_UP / LINK_ERROR_RECOVERY (physical)
    bool physical = false;
    std::int64_t line = 0;
};

struct ExpositionFile
{
    // The file's distinct counter series in order of first appearance (each with its first reading), and every
    // reading in file order.
    std::vector<ExpositionSample> series;
    std::vector<ExpositionPoint> points;
    // Reading i with its series' identity.
    ExpositionSample sample(std::size_t i) const
    {
        auto s = series[points[i].series];
        s.timeNs = points[i].timeNs;
        s.value = points[i].value;
        s.line = points[i].line;
        return s;
    }
    std::vector<ExpositionState> states; // host ports' states, in file order
    std::size_t hostSeries = 0, fabricSeries = 0, infoSeries = 0;
    bool undated = false; // some samples have no time
    std::vector<LoadIssue> warnings;
};

// A scrape file read into its distinct series and their readings, with no fabric yet: the part of reading that
// touches nothing shared, so the folder reader runs it on a worker thread (a day of scrapes is GBs).
struct ExpositionScan
{
    struct Series
    {
        std::string text; // name{labels} as the file spells it
        std::int64_t firstLine = 0;
    };
    struct Reading
    {
        std::uint32_t series = 0;
        bool timeBad = false; // a millisecond timestamp whose ns do not fit
        double value = 0;
        TimeNs timeNs = kNoTime; // its own timestamp, else the stamp line in force, else none
        std::int64_t line = 0;
    };
    std::vector<Series> series;
    std::vector<Reading> readings;
    std::string unameHost; // node_uname_info's nodename, wherever it is in the file
    // Lines that are not samples: the first WarningCap::kKeptPerFile of them, then one saying how many more.
    std::vector<LoadIssue> warnings;
};
ExpositionScan scanPrometheusExposition(const std::string& file, const std::string& text);
// A file too large to hold scanned whole (a week of timestamped samples) is scanned in pieces that end at line
// ends; the cursor carries what one piece leaves the next: the line number, the stamp line in force and the host
// node_uname_info names anywhere in the file.
struct ExpositionScanCursor
{
    std::int64_t line = 0; // lines before the next piece
    TimeNs stampNs = kNoTime;
    std::string unameHost;
};
ExpositionScanCursor startExpositionScan(std::string_view whole);
ExpositionScan scanPrometheusExpositionPart(
    const std::string& file, std::string_view text, ExpositionScanCursor& cursor);
// The scan's series resolved (what each is, its host, device, GUID and port; info series and cable labels into
// `fabric`) and its readings checked: the part that touches the fabric, on the calling thread.
Result<ExpositionFile> resolvePrometheusExposition(const std::string& file, ExpositionScan scan, FabricBuilder& fabric);

bool looksLikePrometheusExposition(const std::string& text);
// The cheap test the folder reader tries first: the first sample line (after comments, HELP/TYPE and stamp lines,
// within the first 8 KiB) is an InfiniBand series. Large scrape files are recognised without scanning them whole.
bool looksLikeExpositionHead(const std::string& text);
// Fabric facts from info series and cable labels go into `fabric`.
Result<ExpositionFile> readPrometheusExposition(
    const std::string& file, const std::string& text, FabricBuilder& fabric);

// A series whose points are held apart (a query_range answer, import/prometheus/http_answers.h): its key — kind,
// port, and the GUID (switch side) or host and device (host side) — from its exposition line without a value,
// and the divisor that turns its values into the model's units. Info series and cable labels go into `fabric` as
// when scraped; nullopt for them and for series that are not port counters.
struct ExpositionSeriesKey
{
    ExpositionSample key;
    std::uint64_t divisor = 1;
};
std::optional<ExpositionSeriesKey> readExpositionSeriesKey(
    const std::string& file, const std::string& line, FabricBuilder& fabric, ExpositionFile& out);

} // namespace stallscope
