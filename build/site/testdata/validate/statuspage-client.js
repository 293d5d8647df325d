// Reads the Statuspage v2 façade of each service named on the command line
// with the statuspage.io npm client (a third-party Statuspage API client,
// axios underneath), pointed at BASE/p/<slug>. Prints one line per service:
// slug|indicator|components|unresolved incidents|all incidents|active
// maintenances, where components are id=status, a group's id marked with
// "*" and a member's prefixed with its group's id and ">", and unresolved
// incidents are id@ the ids of the components each names, joined by "+".
// Exits non-zero on any failed call, value outside v2's enums, or member
// whose group does not list it.
const { Statuspage } = require("statuspage.io");

const indicators = ["none", "minor", "major", "critical", "maintenance"];
const componentStatuses = ["operational", "degraded_performance", "partial_outage", "major_outage", "under_maintenance"];
const incidentStatuses = ["investigating", "identified", "monitoring", "resolved", "postmortem"];
const maintenanceStatuses = ["scheduled", "in_progress", "verifying", "completed"];

function check(what, value, allowed) {
  if (!allowed.includes(value)) {
    throw new Error(`${what}: ${JSON.stringify(value)} is not one of ${allowed.join(", ")}`);
  }
}

async function read(base, slug) {
  const client = new Statuspage("unused");
  client.setApiUrl(`${base}/p/${slug}`);
  const summary = await client.api.getSummary();
  const status = await client.api.getStatus();
  const components = await client.api.getComponents();
  const all = await client.api.incidents.getAll();
  const unresolved = await client.api.incidents.getUnresolved();
  // The client's getActive, getAll and getUpcoming all ask upcoming.json.
  const upcoming = await client.api.scheduledMaintenances.getUpcoming();

  for (const doc of [summary, status, components, all, unresolved, upcoming]) {
    if (doc.page.id !== slug) throw new Error(`page.id ${doc.page.id}, want ${slug}`);
  }
  check("status.indicator", status.status.indicator, indicators);
  if (summary.status.indicator !== status.status.indicator) throw new Error("summary and status disagree");
  const byId = new Map(components.components.map((c) => [c.id, c]));
  for (const c of components.components) {
    check(`component ${c.id}`, c.status, componentStatuses);
    const group = c.group_id === null ? null : byId.get(c.group_id);
    if (c.group_id !== null && !(group && group.group && group.components.includes(c.id))) {
      throw new Error(`component ${c.id}: group ${c.group_id} is no group listing it`);
    }
  }
  for (const i of all.incidents) check(`incident ${i.id}`, i.status, incidentStatuses);
  for (const i of unresolved.incidents) {
    check(`unresolved incident ${i.id}`, i.status, incidentStatuses.slice(0, 3));
  }
  for (const m of summary.scheduled_maintenances) check(`maintenance ${m.id}`, m.status, maintenanceStatuses);
  if (upcoming.scheduled_maintenances.length !== 0) throw new Error("upcoming maintenances listed");
  const component = (c) => (c.group_id === null ? "" : `${c.group_id}>`) + c.id + (c.group ? "*" : "") + "=" + c.status;
  const incident = (i) => `${i.id}@${i.components.map((c) => c.id).join("+")}`;
  return [slug, status.status.indicator, components.components.map(component).join(","),
    unresolved.incidents.map(incident).join(" "), all.incidents.length, summary.scheduled_maintenances.length].join("|");
}

(async () => {
  const [base, ...slugs] = process.argv.slice(2);
  for (const slug of slugs) {
    console.log(await read(base, slug));
  }
})().catch((err) => {
  console.error(err.message || err);
  process.exit(1);
});
