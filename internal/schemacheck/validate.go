package schemacheck

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Validate checks one frame against version's schema. A request or a
// notification is checked against the envelope (JSONRPCRequest or
// JSONRPCNotification) and against the definition of its method; a
// response against the success or error response definition (the result's
// own shape needs the request's method: see ValidateResult). A batch array
// is accepted only by versions that define batches (2025-03-26), and each
// member is checked.
func Validate(version string, frame []byte) error {
	vs, err := lookup(version)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(frame))
	if err != nil {
		return fmt.Errorf("schemacheck: frame is not JSON: %w", err)
	}
	if batch, ok := inst.([]any); ok {
		if !vs.has("JSONRPCBatchRequest") {
			return fmt.Errorf("schemacheck: batches do not exist in protocol version %s", version)
		}
		if len(batch) == 0 {
			return errors.New("schemacheck: empty batch")
		}
		var errs []error
		for i, member := range batch {
			if err := vs.validateMessage(member); err != nil {
				errs = append(errs, fmt.Errorf("batch member %d: %w", i, err))
			}
		}
		return errors.Join(errs...)
	}
	return vs.validateMessage(inst)
}

func (vs *versionSchema) validateMessage(inst any) error {
	obj, ok := inst.(map[string]any)
	if !ok {
		return errors.New("schemacheck: a message must be a JSON object")
	}
	if rawMethod, hasMethod := obj["method"]; hasMethod {
		method, ok := rawMethod.(string)
		if !ok {
			return vs.check("JSONRPCRequest", inst) // reports the type error
		}
		_, hasID := obj["id"]
		return vs.validateCall(method, hasID, inst)
	}
	if _, isError := obj["error"]; isError {
		return vs.check(vs.pick("JSONRPCErrorResponse", "JSONRPCError"), inst)
	}
	return vs.check(vs.pick("JSONRPCResultResponse", "JSONRPCResponse"), inst)
}

// validateCall checks a request (hasID) or notification of method.
func (vs *versionSchema) validateCall(method string, hasID bool, inst any) error {
	envelope, defs, other, kind := "JSONRPCNotification", vs.notifs, vs.requests, "notification"
	if hasID {
		envelope, defs, other, kind = "JSONRPCRequest", vs.requests, vs.notifs, "request"
	}
	def, ok := defs[method]
	if !ok {
		if _, isOther := other[method]; isOther {
			return fmt.Errorf("schemacheck: %s is not a %s in protocol version %s", method, kind, vs.version)
		}
		return fmt.Errorf("schemacheck: method %s does not exist in protocol version %s", method, vs.version)
	}
	if err := vs.check(envelope, inst); err != nil {
		return err
	}
	return vs.check(def, inst)
}

// ValidateResult checks a success result (the "result" member only)
// against the result definition of method's request in version: the
// request's definition name with Result for Request (CallToolRequest ->
// CallToolResult), or EmptyResult where the schema defines no such result
// (ping, resources/subscribe, logging/setLevel, ...).
func ValidateResult(version, method string, result []byte) error {
	vs, err := lookup(version)
	if err != nil {
		return err
	}
	name, err := vs.resultDefinition(method)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(result))
	if err != nil {
		return fmt.Errorf("schemacheck: result is not JSON: %w", err)
	}
	return vs.check(name, inst)
}

// resultDefinition names the definition a result of method is checked
// against.
func (vs *versionSchema) resultDefinition(method string) (string, error) {
	req, ok := vs.requests[method]
	if !ok {
		return "", fmt.Errorf("schemacheck: method %s does not exist in protocol version %s", method, vs.version)
	}
	if res := strings.TrimSuffix(req, "Request") + "Result"; vs.has(res) {
		return res, nil
	}
	return "EmptyResult", nil
}

// Definitions reports the definition names used for method in version:
// the request or notification definition and, for a request, the result
// definition. It exists so tests can state the mapping.
func Definitions(version, method string) (call, result string, err error) {
	vs, err := lookup(version)
	if err != nil {
		return "", "", err
	}
	if n, ok := vs.notifs[method]; ok {
		return n, "", nil
	}
	if _, ok := vs.requests[method]; !ok {
		return "", "", fmt.Errorf("schemacheck: method %s does not exist in protocol version %s", method, version)
	}
	res, err := vs.resultDefinition(method)
	return vs.requests[method], res, err
}

// Methods lists the request and notification methods version defines.
func Methods(version string) ([]string, error) {
	vs, err := lookup(version)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(vs.requests)+len(vs.notifs))
	for m := range vs.requests {
		out = append(out, m)
	}
	for m := range vs.notifs {
		out = append(out, m)
	}
	sort.Strings(out)
	return out, nil
}

func (vs *versionSchema) check(def string, inst any) error {
	s, err := vs.schema(def)
	if err != nil {
		return fmt.Errorf("schemacheck: %w", err)
	}
	if err := s.Validate(inst); err != nil {
		return fmt.Errorf("schemacheck: %s (%s): %w", def, vs.version, err)
	}
	return nil
}

// pick returns the first definition name the version has: 2025-11-25
// renamed the response definitions.
func (vs *versionSchema) pick(names ...string) string {
	for _, n := range names {
		if vs.has(n) {
			return n
		}
	}
	return names[len(names)-1]
}
