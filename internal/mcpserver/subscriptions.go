package mcpserver

import (
	"slices"

	"github.com/mcpengine/mcpengine/messages"
)

// subscriptions/listen (2026-07-28): a request that stays open, whose
// answer stream carries the notifications its filter opts in to, each
// naming the listen (its request id) in _meta.

// ListenWants reports whether a listen's filter opts in to a
// notification: a list change by its method, resources/updated by uri.
func ListenWants(f *messages.SubscriptionFilter, method, uri string) bool {
	switch method {
	case messages.NotificationToolsListChanged:
		return f.ToolsListChanged
	case messages.NotificationPromptsListChanged:
		return f.PromptsListChanged
	case messages.NotificationResourcesListChanged:
		return f.ResourcesListChanged
	case messages.NotificationResourcesUpdated:
		return slices.Contains(f.ResourceSubscriptions, uri)
	}
	return false
}

// AppendSubscriptionMeta appends `"_meta":{"…/subscriptionId":id}`.
func AppendSubscriptionMeta(buf []byte, id messages.ID) []byte {
	buf = append(buf, `"_meta":{"`+messages.MetaSubscriptionID+`":`...)
	buf = id.AppendJSON(buf)
	return append(buf, '}')
}

// AppendListenParams appends the params of a notification on listen id:
// its _meta, then members (the other members, "" for none).
func AppendListenParams(buf []byte, id messages.ID, members []byte) []byte {
	buf = AppendSubscriptionMeta(append(buf, '{'), id)
	if len(members) > 0 {
		buf = append(append(buf, ','), members...)
	}
	return append(buf, '}')
}

// AppendListenAck appends the members of the acknowledgement of a
// listen's filter (notifications/subscriptions/acknowledged, the first
// message of its stream).
func AppendListenAck(buf []byte, ack *messages.SubscriptionFilter) ([]byte, error) {
	raw, err := messages.Marshal(ack)
	if err != nil {
		return buf, err
	}
	return append(append(buf, `"notifications":`...), raw...), nil
}

// AppendURIMember appends `"uri":uri`, the member of resources/updated.
func AppendURIMember(buf []byte, uri string) []byte {
	return messages.AppendJSONString(append(buf, `"uri":`...), uri)
}
