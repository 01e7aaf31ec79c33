// SPDX-License-Identifier: MIT
#pragma once

// An incident as a structured page for the Incidents panel: the verdict in one sentence, the cost, the
// collective, the culprit and how its path came back, the evidence as a table whose times are links (a click
// moves the cursor of every view there: "t:<epoch ns>"), what the hosts said, the links looked at and not
// blamed, and the what-if table as a real table. Same facts as the text report (analysis/report.cpp).

#include <QString>

#include <optional>

namespace stallscope {

struct Incident;
struct JobSnapshot;

QString incidentHtml(const JobSnapshot& snap, const Incident& inc);

// "t:1793491440030000000" → the time; nullopt for any other link.
std::optional<long long> timeOfLink(const QString& href);

} // namespace stallscope
