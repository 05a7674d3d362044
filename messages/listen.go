package messages

// subscriptions/listen (2026-07-28) replaces the handshake era's standalone
// GET stream and resources/subscribe: one long-lived request whose answer
// is a stream of the notifications its filter opts in to, acknowledged
// first by notifications/subscriptions/acknowledged, and ended gracefully
// by its result.
const (
	MethodSubscriptionsListen             = "subscriptions/listen"                     // client → server, 2026-07-28+
	NotificationSubscriptionsAcknowledged = "notifications/subscriptions/acknowledged" // server → client, 2026-07-28+
	// MetaSubscriptionID is the _meta key naming the listen request (its
	// JSON-RPC id) on every notification of its stream and on its result.
	MetaSubscriptionID = "io.modelcontextprotocol/subscriptionId"
)

// SubscriptionFilter is the set of notifications a listen opts in to; the
// acknowledgement carries the subset the server agreed to honor.
type SubscriptionFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
}

// Empty reports whether the filter asks for nothing.
func (f *SubscriptionFilter) Empty() bool {
	return !f.ToolsListChanged && !f.PromptsListChanged && !f.ResourcesListChanged && len(f.ResourceSubscriptions) == 0
}

// ListenParams are the params of subscriptions/listen besides the
// per-request _meta, which the session splices in (RequestMeta).
type ListenParams struct {
	Notifications SubscriptionFilter `json:"notifications"`
}

func (*ListenParams) fromClient() {}

// SubscriptionMeta is the _meta of a listen stream's notifications and of
// its result.
type SubscriptionMeta struct {
	SubscriptionID *ID `json:"io.modelcontextprotocol/subscriptionId,omitempty"`
}

// SubscriptionsAcknowledgedParams are the params of
// notifications/subscriptions/acknowledged.
type SubscriptionsAcknowledgedParams struct {
	Meta          *SubscriptionMeta  `json:"_meta,omitempty"`
	Notifications SubscriptionFilter `json:"notifications"`
}

func (*SubscriptionsAcknowledgedParams) fromServer() {}

// ListenResult is the answer to subscriptions/listen: the stream ended
// gracefully (a dropped stream has no answer).
type ListenResult struct {
	ResultType string            `json:"resultType"`
	Meta       *SubscriptionMeta `json:"_meta"`
}

func (*ListenResult) fromServer() {}
