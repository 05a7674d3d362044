package messages

// Request methods of the legacy protocol versions. Which side sends each is
// noted; a method missing from a negotiated version must not be sent.
const (
	MethodInitialize             = "initialize"               // client → server
	MethodPing                   = "ping"                     // either side
	MethodToolsList              = "tools/list"               // client → server
	MethodToolsCall              = "tools/call"               // client → server
	MethodResourcesList          = "resources/list"           // client → server
	MethodResourcesTemplatesList = "resources/templates/list" // client → server
	MethodResourcesRead          = "resources/read"           // client → server
	MethodResourcesSubscribe     = "resources/subscribe"      // client → server
	MethodResourcesUnsubscribe   = "resources/unsubscribe"    // client → server
	MethodPromptsList            = "prompts/list"             // client → server
	MethodPromptsGet             = "prompts/get"              // client → server
	MethodCompletionComplete     = "completion/complete"      // client → server
	MethodLoggingSetLevel        = "logging/setLevel"         // client → server
	MethodSamplingCreateMessage  = "sampling/createMessage"   // server → client
	MethodElicitationCreate      = "elicitation/create"       // server → client, 2025-06-18+
	MethodRootsList              = "roots/list"               // server → client
)

// Notification methods.
const (
	NotificationInitialized          = "notifications/initialized"            // client → server
	NotificationCancelled            = "notifications/cancelled"              // either side
	NotificationProgress             = "notifications/progress"               // either side
	NotificationMessage              = "notifications/message"                // server → client
	NotificationResourcesUpdated     = "notifications/resources/updated"      // server → client
	NotificationResourcesListChanged = "notifications/resources/list_changed" // server → client
	NotificationToolsListChanged     = "notifications/tools/list_changed"     // server → client
	NotificationPromptsListChanged   = "notifications/prompts/list_changed"   // server → client
	NotificationRootsListChanged     = "notifications/roots/list_changed"     // client → server
	NotificationElicitationComplete  = "notifications/elicitation/complete"   // server → client, 2025-11-25+
)
