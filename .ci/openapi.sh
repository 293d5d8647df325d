#!/usr/bin/env bash
# Checks build/openapi.json with the tools people point at it, at pinned
# versions:
#   - Redocly CLI (`redocly lint`, its recommended rules): no errors;
#   - Spectral (`spectral lint`, the spectral:oas ruleset, .ci/openapi/
#     .spectral.yaml): no errors and no warnings;
#   - oapi-codegen with its default settings (`-generate types,client`): the
#     generated Go client compiles and vets, and a small program reading
#     resp.JSON200.Services and a service's Status directly compiles against
#     it, in a scratch module that needs only the Go module proxy.
# The npm packages are pinned by .ci/openapi/package-lock.json (see
# .ci/npm-tools.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

oapi_codegen_version=v2.8.2
oapi_runtime_version=v1.8.0
spec=build/openapi.json

# shellcheck source=.ci/npm-tools.sh
. .ci/npm-tools.sh
npm_tools openapi
bin=$npm_bin

echo "-- redocly lint"
# No telemetry, no update check: CI reaches only the package registries.
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
  "$bin/redocly" lint --format=summary "$spec"

echo "-- spectral lint (spectral:oas)"
"$bin/spectral" lint --ruleset .ci/openapi/.spectral.yaml --fail-severity=warn "$spec"

echo "-- oapi-codegen $oapi_codegen_version (types,client) and go build of the client"
if [ "$(oapi-codegen --version 2>/dev/null | tail -n1)" != "$oapi_codegen_version" ]; then
  go install "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@$oapi_codegen_version"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
oapi-codegen -generate types,client -package client "$spec" >"$work/client.go"
# A few uses of the generated names, so that a rename that breaks clients
# fails here rather than in someone else's build — and that reading them is
# natural: getStatus and getService return one schema each (the point-in-
# time reads are operations of their own), so resp.JSON200.Services and a
# service's Status are used directly, with no union to unwrap.
cat >"$work/use.go" <<'EOF'
package client

import (
	"context"
	"time"
)

var (
	_ = func(c *ClientWithResponses) ([]string, error) {
		ctx := context.Background()
		r, err := c.GetStatusWithResponse(ctx)
		if err != nil {
			return nil, err
		}
		var notUp []string
		for _, s := range r.JSON200.Services {
			if s.Status != StatusOperational {
				notUp = append(notUp, s.Slug+": "+string(s.Status))
			}
		}
		d, err := c.GetServiceWithResponse(ctx, "openai")
		if err != nil {
			return nil, err
		}
		var _ Status = d.JSON200.Status
		var _ []Incident = d.JSON200.Incidents
		then, err := c.GetStatusAtWithResponse(ctx, time.Now().Add(-time.Hour))
		if err != nil {
			return nil, err
		}
		var _ []ServiceAt = then.JSON200.Services
		one, err := c.GetServiceAtWithResponse(ctx, "openai", time.Now().Add(-time.Hour))
		if err != nil {
			return nil, err
		}
		var _ Status = one.JSON200.Service.Status
		return notUp, nil
	}
	_ = func(c *ClientWithResponses) (*CheckResult, error) {
		r, err := c.CheckWithResponse(context.Background(), &CheckParams{Q: "example.org"})
		if err != nil {
			return nil, err
		}
		var _ *CheckService = r.JSON200.Service
		var _ *CheckStatus = r.JSON200.Status
		return r.JSON200, nil
	}
	_ = (*ClientWithResponses).GetStatusWithResponse
	_ = (*ClientWithResponses).GetServiceWithResponse
	_ = (*ClientWithResponses).GetStatusAtWithResponse
	_ = (*ClientWithResponses).GetServiceAtWithResponse
	_ = (*ClientWithResponses).ListIncidentsWithResponse
	_ = (*ClientWithResponses).OpenapiWithResponse
	_ = (*ClientWithResponses).ExportWithResponse
)
EOF
go_version=$(go list -m -f '{{.GoVersion}}')
(
  cd "$work"
  export GOWORK=off GOFLAGS=-mod=mod
  go mod init openapi-client.example/client >/dev/null 2>&1
  go mod edit -go="$go_version"
  go get "github.com/oapi-codegen/runtime@$oapi_runtime_version" >/dev/null 2>&1 ||
    go get "github.com/oapi-codegen/runtime@$oapi_runtime_version"
  go mod tidy
  go build ./...
  go vet ./...
)
echo "generated client: $(wc -l <"$work/client.go") lines, compiles; JSON200.Services and Status used directly"
