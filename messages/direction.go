package messages

// Every params or result type is marked with the side that sends it, by an
// unexported no-op method. The marker documents the direction in the code
// and closes the sets below: only this package can add members, so an
// engine API taking a ClientPayload cannot be handed a server's result by
// mistake. Types both sides send (ping's EmptyResult, cancellation,
// progress) carry both markers.

// ClientPayload is implemented by the params and results a client sends.
type ClientPayload interface{ fromClient() }

// ServerPayload is implemented by the params and results a server sends.
type ServerPayload interface{ fromServer() }
