package messages

// The method table: what the engine knows of each MCP method, in one
// place. The decoder (which names it interns), the session's capability
// and version checks before sending, the 2026-07-28 Mcp-Name header,
// telemetry's span targets and the gateway's metric labels all read it;
// adding a method is a row here plus its typed params/result and wrapper.

// Sender is who sends a method.
type Sender uint8

// The senders.
const (
	FromClient Sender = 1 << iota
	FromServer
	FromEither = FromClient | FromServer
)

// TargetKind says what a request's params name as its target, for the
// Mcp-Name header (2026-07-28) and telemetry's span name.
type TargetKind uint8

// The target kinds.
const (
	NoTarget       TargetKind = iota
	TargetTool                // params.name, a tool
	TargetPrompt              // params.name, a prompt
	TargetResource            // params.uri, a resource
)

// MethodSpec is one method of MCP.
type MethodSpec struct {
	Name         string
	From         Sender
	Notification bool
	// Since is the first protocol version that has the method; Until the
	// first that no longer has it ("": every version since).
	Since, Until string
	// Capability is what the receiver must have declared for a request
	// to be sent to it ("": nothing), from CapabilitySince on ("": from
	// Since). Only server capabilities are checked (client requests).
	Capability, CapabilitySince string
	Target                      TargetKind
}

// InVersion reports whether the method exists in protocol version v.
func (m *MethodSpec) InVersion(v string) bool {
	return VersionAtLeast(v, m.Since) && (m.Until == "" || !VersionAtLeast(v, m.Until))
}

// NeedsCapability returns the server capability the request needs in
// protocol version v, or "".
func (m *MethodSpec) NeedsCapability(v string) string {
	if m.Capability == "" || (m.CapabilitySince != "" && !VersionAtLeast(v, m.CapabilitySince)) {
		return ""
	}
	return m.Capability
}

// MethodTable lists every method, requests first, in the order of the
// specification's sections.
var MethodTable = []MethodSpec{
	{Name: MethodInitialize, From: FromClient, Since: Version20241105, Until: Version20260728},
	{Name: MethodServerDiscover, From: FromClient, Since: Version20260728},
	{Name: MethodPing, From: FromEither, Since: Version20241105, Until: Version20260728},
	{Name: MethodToolsList, From: FromClient, Since: Version20241105, Capability: "tools"},
	{Name: MethodToolsCall, From: FromClient, Since: Version20241105, Capability: "tools", Target: TargetTool},
	{Name: MethodResourcesList, From: FromClient, Since: Version20241105, Capability: "resources"},
	{Name: MethodResourcesTemplatesList, From: FromClient, Since: Version20241105, Capability: "resources"},
	{Name: MethodResourcesRead, From: FromClient, Since: Version20241105, Capability: "resources", Target: TargetResource},
	{Name: MethodResourcesSubscribe, From: FromClient, Since: Version20241105, Until: Version20260728, Capability: "resources.subscribe", Target: TargetResource},
	{Name: MethodResourcesUnsubscribe, From: FromClient, Since: Version20241105, Until: Version20260728, Capability: "resources.subscribe", Target: TargetResource},
	{Name: MethodPromptsList, From: FromClient, Since: Version20241105, Capability: "prompts"},
	{Name: MethodPromptsGet, From: FromClient, Since: Version20241105, Capability: "prompts", Target: TargetPrompt},
	// 2024-11-05 had completion/complete without a capability to declare.
	{Name: MethodCompletionComplete, From: FromClient, Since: Version20241105, Capability: "completions", CapabilitySince: Version20250326},
	{Name: MethodLoggingSetLevel, From: FromClient, Since: Version20241105, Until: Version20260728, Capability: "logging"},
	{Name: MethodSubscriptionsListen, From: FromClient, Since: Version20260728},
	{Name: MethodTasksGet, From: FromEither, Since: Version20251125, Until: Version20260728, Capability: "tasks"},
	{Name: MethodTasksResult, From: FromEither, Since: Version20251125, Until: Version20260728, Capability: "tasks"},
	{Name: MethodTasksList, From: FromEither, Since: Version20251125, Until: Version20260728, Capability: "tasks.list"},
	{Name: MethodTasksCancel, From: FromEither, Since: Version20251125, Until: Version20260728, Capability: "tasks.cancel"},
	// Server to client requests; in 2026-07-28 they are the input requests
	// of an input_required answer.
	{Name: MethodSamplingCreateMessage, From: FromServer, Since: Version20241105},
	{Name: MethodElicitationCreate, From: FromServer, Since: Version20250618},
	{Name: MethodRootsList, From: FromServer, Since: Version20241105},

	{Name: NotificationInitialized, From: FromClient, Notification: true, Since: Version20241105, Until: Version20260728},
	{Name: NotificationCancelled, From: FromEither, Notification: true, Since: Version20241105},
	{Name: NotificationProgress, From: FromEither, Notification: true, Since: Version20241105},
	{Name: NotificationMessage, From: FromServer, Notification: true, Since: Version20241105},
	{Name: NotificationResourcesUpdated, From: FromServer, Notification: true, Since: Version20241105},
	{Name: NotificationResourcesListChanged, From: FromServer, Notification: true, Since: Version20241105},
	{Name: NotificationToolsListChanged, From: FromServer, Notification: true, Since: Version20241105},
	{Name: NotificationPromptsListChanged, From: FromServer, Notification: true, Since: Version20241105},
	{Name: NotificationRootsListChanged, From: FromClient, Notification: true, Since: Version20241105, Until: Version20260728},
	{Name: NotificationElicitationComplete, From: FromServer, Notification: true, Since: Version20251125, Until: Version20260728},
	{Name: NotificationTasksStatus, From: FromEither, Notification: true, Since: Version20251125, Until: Version20260728},
	{Name: NotificationSubscriptionsAcknowledged, From: FromServer, Notification: true, Since: Version20260728},
}

var methodsByName = func() map[string]*MethodSpec {
	m := make(map[string]*MethodSpec, len(MethodTable))
	for i := range MethodTable {
		m[MethodTable[i].Name] = &MethodTable[i]
	}
	return m
}()

// LookupMethod returns the method's row, or false for a method MCP does
// not define (or the engine does not know).
func LookupMethod(name string) (*MethodSpec, bool) {
	m, ok := methodsByName[name]
	return m, ok
}

// knownMethod returns the table's name equal to name, if any, so that a
// decoded message's method shares the constant instead of a new string.
// Indexing a map by string(bytes) does not allocate.
func knownMethod(name []byte) (string, bool) {
	m, ok := methodsByName[string(name)]
	if !ok {
		return "", false
	}
	return m.Name, true
}
