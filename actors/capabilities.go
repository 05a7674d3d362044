package actors

import "github.com/mcpengine/mcpengine/messages"

// checkCapability refuses a request the server's declared capabilities rule
// out, before it is sent (servers answer such requests with -32601 at best).
func checkCapability(method string, neg *Negotiated) error {
	if neg.RequestMeta != nil && removedInModern(method) {
		return &MethodNotInVersionError{Method: method, Version: neg.ProtocolVersion}
	}
	caps := &neg.Capabilities
	need := ""
	switch method {
	case messages.MethodToolsList, messages.MethodToolsCall:
		if caps.Tools == nil {
			need = "tools"
		}
	case messages.MethodResourcesList, messages.MethodResourcesTemplatesList, messages.MethodResourcesRead:
		if caps.Resources == nil {
			need = "resources"
		}
	case messages.MethodResourcesSubscribe, messages.MethodResourcesUnsubscribe:
		if caps.Resources == nil || !caps.Resources.Subscribe {
			need = "resources.subscribe"
		}
	case messages.MethodPromptsList, messages.MethodPromptsGet:
		if caps.Prompts == nil {
			need = "prompts"
		}
	case messages.MethodLoggingSetLevel:
		if caps.Logging == nil {
			need = "logging"
		}
	case messages.MethodTasksGet, messages.MethodTasksResult:
		if caps.Tasks == nil {
			need = "tasks"
		}
	case messages.MethodTasksList:
		if caps.Tasks == nil || caps.Tasks.List == nil {
			need = "tasks.list"
		}
	case messages.MethodTasksCancel:
		if caps.Tasks == nil || caps.Tasks.Cancel == nil {
			need = "tasks.cancel"
		}
	case messages.MethodCompletionComplete:
		// 2024-11-05 had completion/complete without a capability to declare it.
		if caps.Completions == nil && messages.VersionAtLeast(neg.ProtocolVersion, messages.Version20250326) {
			need = "completions"
		}
	}
	if need == "" {
		return nil
	}
	return &CapabilityError{Method: method, Capability: need}
}
