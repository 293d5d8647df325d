package history

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aistatus/aistatus/api"
)

// The agreement of a model's witnesses at one service (docs/api.md,
// "Decisions on the spec's gaps", rule 7). Each source is one witness,
// whatever the number of its entries there (a gateway's regions, or a
// service's two offers, "Google Vertex" and "Google AI Studio"): its word
// is its best status there, where the model works now. Of the counted witnesses that know:
//
//   - none: unknown (AgreementNone);
//   - all working, or all in trouble: the best of them (AgreementAgreed
//     with two or more, else AgreementSingle);
//   - one in trouble, the others working: the working status, for one
//     witness's failures are its own until a second agrees: a gateway's
//     are its own routing, not the provider's (AgreementGatewayTrouble),
//     another's are disputed (AgreementDisputed);
//   - two or more in trouble, another working: the trouble is the
//     provider's, and the status is the mildest of theirs
//     (AgreementConfirmed).
//
// Trouble is any known status worse than operational. The keyless probe
// of the service's API host is shown as a witness, never counted: the
// host answering, or not, says nothing certain of one model.

// ModelWitnesses are the witnesses of a model at service among its
// entries, one per source, in the order the entries first name them.
func ModelWitnesses(providers []api.ModelProvider, service string) []api.ModelWitness {
	var out []api.ModelWitness
	at := map[string]int{}
	for _, p := range providers {
		if p.Service != service {
			continue
		}
		w := api.ModelWitness{Source: p.Source.ID, Kind: p.Source.Kind, Name: p.Source.Name, Status: p.Status,
			Uptime: p.Uptime, Window: p.Source.Window, Latency: p.Latency, Attribution: p.Source.Attribution, Counted: true}
		i, seen := at[p.Source.ID+"\x00"+p.Source.Kind]
		switch {
		case !seen:
			at[p.Source.ID+"\x00"+p.Source.Kind] = len(out)
			out = append(out, w)
		case api.CompareUsable(w.Status, out[i].Status) < 0:
			out[i] = w
		}
	}
	return out
}

// failing reports whether a witness's s is known and worse than
// operational.
func failing(s api.Status) bool {
	return s != api.Unknown && s != "" && s != api.Operational
}

// AgreeModelStatus is what witnesses, a model's at service, say together,
// by the rule above.
func AgreeModelStatus(service string, witnesses []api.ModelWitness) api.ModelAgreement {
	out := api.ModelAgreement{Service: service, Status: api.Unknown, Verdict: api.AgreementNone, Witnesses: witnesses}
	if out.Witnesses == nil {
		out.Witnesses = []api.ModelWitness{}
	}
	var fine, trouble []api.ModelWitness
	for _, w := range witnesses {
		switch {
		case !w.Counted || w.Status == api.Unknown || w.Status == "":
		case failing(w.Status):
			trouble = append(trouble, w)
		default:
			fine = append(fine, w)
		}
	}
	best := func(ws []api.ModelWitness) api.Status {
		s := api.Unknown
		for _, w := range ws {
			if api.CompareUsable(w.Status, s) < 0 {
				s = w.Status
			}
		}
		return s
	}
	names := func(ws []api.ModelWitness) []string {
		var n []string
		for _, w := range ws {
			n = append(n, w.Name)
		}
		return n
	}
	switch {
	case len(fine)+len(trouble) == 0:
		out.Statement = "No witness knows how the model fares here."
	case len(trouble) == 0 || len(fine) == 0:
		all := append(slices.Clone(fine), trouble...)
		out.Status, out.Verdict = best(all), api.AgreementSingle
		out.Statement = fmt.Sprintf("Only %s knows: %s.", all[0].Name, out.Status)
		if len(all) > 1 {
			out.Verdict = api.AgreementAgreed
			out.Statement = fmt.Sprintf("%s agree: %s.", strings.Join(names(all), " and "), out.Status)
		}
	case len(trouble) == 1:
		out.Status, out.Dissent = best(fine), []string{trouble[0].Source}
		out.Verdict = api.AgreementDisputed
		out.Statement = fmt.Sprintf("%s sees %s, but %s sees it %s: one witness's failures are not the provider's until a second agrees.",
			trouble[0].Name, trouble[0].Status, strings.Join(names(fine), " and "), out.Status)
		if trouble[0].Kind == api.ModelSourceGateway {
			out.Verdict = api.AgreementGatewayTrouble
			out.Statement = fmt.Sprintf("%s's own requests fail (%s) while %s sees the model %s: %s's routing, not the provider's.",
				trouble[0].Name, trouble[0].Status, strings.Join(names(fine), " and "), out.Status, trouble[0].Name)
		}
	default:
		out.Verdict = api.AgreementConfirmed
		out.Status = best(trouble)
		for _, w := range fine {
			out.Dissent = append(out.Dissent, w.Source)
		}
		out.Statement = fmt.Sprintf("%s see trouble (%s): confirmed, the provider's, though %s sees it working.",
			strings.Join(names(trouble), " and "), out.Status, strings.Join(names(fine), " and "))
	}
	return out
}

// ModelAgreements are the agreements of a model's witnesses at each
// service its entries name, in the order they first name it; probes are
// the keyless probes' witnesses by service, shown beside the others and
// never counted (nil for none).
func ModelAgreements(providers []api.ModelProvider, probes map[string]api.ModelWitness) []api.ModelAgreement {
	out := []api.ModelAgreement{}
	seen := map[string]bool{}
	for _, p := range providers {
		if seen[p.Service] {
			continue
		}
		seen[p.Service] = true
		ws := ModelWitnesses(providers, p.Service)
		if probe, ok := probes[p.Service]; ok {
			probe.Counted = false
			ws = append(ws, probe)
		}
		out = append(out, AgreeModelStatus(p.Service, ws))
	}
	return out
}
