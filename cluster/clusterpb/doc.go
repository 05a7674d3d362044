// Package clusterpb holds the protobuf messages cluster members exchange
// about sessions (session.proto; regenerate session.pb.go with `make
// proto`). protoactor's remote carries only protobuf messages.
package clusterpb
