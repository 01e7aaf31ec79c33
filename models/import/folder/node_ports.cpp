// SPDX-License-Identifier: MIT
// Every host port (node tools, sysfs copies) into the snapshot. Calling thread.
#include "import/folder/formats.h"

#include <algorithm>
#include <map>
#include <set>

namespace stallscope::folder {

void addHostPorts(JobSnapshot& snap, const Gathered& g)
{
    for (const auto& f : g.nodeTools) {
        snap.hostPorts.insert(snap.hostPorts.end(), f.ports.begin(), f.ports.end());
        snap.goneHcas.insert(snap.goneHcas.end(), f.gone.begin(), f.gone.end());
        snap.portErrors.insert(snap.portErrors.end(), f.errors.begin(), f.errors.end());
        snap.subnetManagers.insert(snap.subnetManagers.end(), f.subnetManagers.begin(), f.subnetManagers.end());
        snap.switchVitals.insert(snap.switchVitals.end(), f.switches.begin(), f.switches.end());
        snap.gpuPaths.insert(snap.gpuPaths.end(), f.gpuPaths.begin(), f.gpuPaths.end());
        snap.nvlinks.insert(snap.nvlinks.end(), f.nvlinks.begin(), f.nvlinks.end());
    }
    for (const auto& tree : g.sysfs) {
        for (const auto& r : tree.ports) {
            HostPort p;
            p.host = tree.host;
            p.device = r.device;
            p.port = r.port;
            p.state = r.state;
            p.phys = r.phys;
            p.rate = parsePortRate(r.rate).value_or(PortRate {});
            p.linkLayer = r.linkLayer;
            p.fw = r.fw;
            p.nodeGuid = r.nodeGuid.value_or(0);
            p.source = "sysfs";
            p.file = tree.root + "/" + r.device + "/ports/" + std::to_string(r.port);
            p.evidence = "state " + (r.stateText.empty() ? std::string("not copied") : r.stateText) + ", phys_state "
                + (r.physText.empty() ? std::string("not copied") : r.physText);
            for (const auto& [kind, value] : r.counters) {
                if (kind == CounterKind::LinkDowned) {
                    p.linkDowned = value;
                }
            }
            snap.hostPorts.push_back(std::move(p));
        }
    }
}

} // namespace stallscope::folder
