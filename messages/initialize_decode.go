package messages

import (
	"bytes"
	"strings"
)

// DecodeInitializeResult decodes an initialize answer exactly as
// Unmarshal(b, &r) into a zero r would: the same value, or an error where
// Unmarshal gives one. The answers servers send are decoded by the frame
// scanner (cold_scan.go), so a process's first session does not wait for
// sonic to compile InitializeResult's decoder; anything the scanner does
// not mirror exactly goes to sonic.
func DecodeInitializeResult(b []byte) (InitializeResult, error) {
	var r InitializeResult
	if scanInitializeResult(bytes.Clone(b), &r) {
		return r, nil
	}
	// A variable of its own: taking r's address for sonic would move r
	// to the heap on the scanner's path too.
	var slow InitializeResult
	err := Unmarshal(b, &slow)
	return slow, err
}

// scanInitializeResult fills r from b when the scanner takes all of b.
func scanInitializeResult(b []byte, r *InitializeResult) bool {
	b = trimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	end, ok := eachMember(b, 0, func(name []byte, i int) (int, bool) {
		switch string(name) {
		case "protocolVersion":
			return coldString(b, i, &r.ProtocolVersion)
		case "capabilities":
			return scanServerCapabilities(b, i, &r.Capabilities)
		case "serverInfo":
			return scanImplementation(b, i, &r.ServerInfo)
		case "instructions":
			return coldString(b, i, &r.Instructions)
		case "_meta":
			return bySonic(b, i, &r.Meta)
		}
		return skipMember(b, i)
	})
	return ok && end == len(b)
}

// scanServerCapabilities decodes the object or null at b[i] into c.
func scanServerCapabilities(b []byte, i int, c *ServerCapabilities) (int, bool) {
	if end, null, ok := nullOrOpening(b, i, '{'); null || !ok {
		return end, ok
	}
	return eachMember(b, i, func(name []byte, i int) (int, bool) {
		switch string(name) {
		case "tools":
			return coldObject(b, i, &c.Tools, func(v *ToolsCapability, b, name []byte, i int) (int, bool) {
				return flag(b, i, name, "listChanged", &v.ListChanged)
			})
		case "resources":
			return coldObject(b, i, &c.Resources, func(v *ResourcesCapability, b, name []byte, i int) (int, bool) {
				if string(name) == "subscribe" {
					return flag(b, i, name, "subscribe", &v.Subscribe)
				}
				return flag(b, i, name, "listChanged", &v.ListChanged)
			})
		case "prompts":
			return coldObject(b, i, &c.Prompts, func(v *PromptsCapability, b, name []byte, i int) (int, bool) {
				return flag(b, i, name, "listChanged", &v.ListChanged)
			})
		case "logging":
			return coldObject(b, i, &c.Logging, noOptions[LoggingCapability])
		case "completions":
			return coldObject(b, i, &c.Completions, noOptions[CompletionsCapability])
		case "experimental":
			return bySonic(b, i, &c.Experimental)
		case "tasks":
			return bySonic(b, i, &c.Tasks)
		}
		return skipMember(b, i)
	})
}

// scanImplementation decodes the object or null at b[i] into impl.
func scanImplementation(b []byte, i int, impl *Implementation) (int, bool) {
	if end, null, ok := nullOrOpening(b, i, '{'); null || !ok {
		return end, ok
	}
	return eachMember(b, i, func(name []byte, i int) (int, bool) {
		switch string(name) {
		case "name":
			return coldString(b, i, &impl.Name)
		case "title":
			return coldString(b, i, &impl.Title)
		case "version":
			return coldString(b, i, &impl.Version)
		case "description":
			return coldString(b, i, &impl.Description)
		case "websiteUrl":
			return coldString(b, i, &impl.WebsiteURL)
		case "icons":
			return bySonic(b, i, &impl.Icons)
		}
		return skipMember(b, i)
	})
}

// InitializeVersion returns the protocolVersion member of an initialize
// answer ("" when absent), as Unmarshal into a struct holding only that
// member would; ok is false where that Unmarshal fails. The HTTP transport
// needs it once per session, before the session decodes the answer: the
// scanner reads it without sonic compiling a decoder for that struct.
func InitializeVersion(result RawMessage) (version string, ok bool) {
	b := trimSpace(result)
	names := [...]string{"protocolVersion"}
	var s [1]span
	if len(b) > 0 && b[0] == '{' {
		if end, scanned := scanMembers(b, 0, names[:], s[:]); scanned && end == len(b) {
			if !s[0].present() {
				return "", true
			}
			if _, scanned = coldString(b, s[0].start, &version); scanned {
				return strings.Clone(version), true // not aliasing the caller's frame
			}
			version = ""
		}
	}
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if Unmarshal(result, &r) != nil {
		return "", false
	}
	return r.ProtocolVersion, true
}
