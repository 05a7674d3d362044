package main

import (
	"fmt"
	"net"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/mcpengine/mcpengine"
)

// The Kubernetes examples in docs/ cannot be applied here (no cluster),
// so these tests hold them to what can be checked without one: every
// document decodes strictly into its Kubernetes type (a misspelt or
// misplaced field fails), every container's command line is one the
// engine accepts (its flags, required flags and arguments, with the
// pod's variables filled in), and the objects agree with each other
// (names, ports, the server table, the RBAC the provider needs).

// manifests holds the objects of one or more manifest files.
type manifests struct {
	services        []corev1.Service
	serviceAccounts []corev1.ServiceAccount
	configMaps      []corev1.ConfigMap
	statefulSets    []appsv1.StatefulSet
	jobs            []batchv1.Job
	roles           []rbacv1.Role
	roleBindings    []rbacv1.RoleBinding
}

func readManifests(t *testing.T, files ...string) *manifests {
	t.Helper()
	var ms manifests
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		for i, doc := range strings.Split(string(raw), "\n---\n") {
			var tm metav1.TypeMeta
			require.NoError(t, yaml.Unmarshal([]byte(doc), &tm), "%s, document %d", f, i)
			var into any
			switch tm.APIVersion + " " + tm.Kind {
			case "v1 Service":
				into = next(&ms.services)
			case "v1 ServiceAccount":
				into = next(&ms.serviceAccounts)
			case "v1 ConfigMap":
				into = next(&ms.configMaps)
			case "apps/v1 StatefulSet":
				into = next(&ms.statefulSets)
			case "batch/v1 Job":
				into = next(&ms.jobs)
			case "rbac.authorization.k8s.io/v1 Role":
				into = next(&ms.roles)
			case "rbac.authorization.k8s.io/v1 RoleBinding":
				into = next(&ms.roleBindings)
			default:
				t.Fatalf("%s, document %d: no check for %s %s", f, i, tm.APIVersion, tm.Kind)
			}
			require.NoError(t, yaml.UnmarshalStrict([]byte(doc), into), "%s, document %d (%s)", f, i, tm.Kind)
		}
	}
	return &ms
}

// next appends a zero object to list and returns it to decode into.
func next[T any](list *[]T) *T {
	*list = append(*list, *new(T))
	return &(*list)[len(*list)-1]
}

// podIP stands for status.podIP in the containers' command lines.
const podIP = "10.1.2.3"

// engineArgs is a container's engine command line with $(VAR) filled in
// from its env: literal values, and status.podIP.
func engineArgs(t *testing.T, c corev1.Container) []string {
	t.Helper()
	require.Equal(t, []string{"/engine"}, c.Command, "container %s runs the engine binary", c.Name)
	vars := map[string]string{}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "status.podIP":
			vars[e.Name] = podIP
		case e.ValueFrom == nil:
			vars[e.Name] = e.Value
		}
	}
	args := slices.Clone(c.Args)
	for i, a := range args {
		for name, v := range vars {
			a = strings.ReplaceAll(a, "$("+name+")", v)
		}
		require.NotContains(t, a, "$(", "container %s: a variable its env does not set", c.Name)
		args[i] = a
	}
	return args
}

// checkCommandLine runs the engine's own parsing of args, short of
// running the command: the subcommand exists, its flags parse, the
// required ones are there, and so are the arguments it takes.
func checkCommandLine(t *testing.T, args []string) {
	t.Helper()
	root := newRootCmd()
	cmd, rest, err := root.Find(args)
	require.NoError(t, err, "%q", args)
	require.NotEqual(t, root, cmd, "%q names no subcommand", args)
	require.NoError(t, cmd.ParseFlags(rest), "%q", args)
	require.NoError(t, cmd.ValidateRequiredFlags(), "%q", args)
	require.NoError(t, cmd.ValidateFlagGroups(), "%q", args)
	require.NoError(t, cmd.ValidateArgs(cmd.Flags().Args()), "%q", args)
}

// flagValue is the value of --name=value in args ("" if absent).
func flagValue(args []string, name string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v
		}
	}
	return ""
}

func containerPorts(c corev1.Container) []int32 {
	var ps []int32
	for _, p := range c.Ports {
		ps = append(ps, p.ContainerPort)
	}
	return ps
}

func portOf(t *testing.T, hostPort string) int32 {
	t.Helper()
	_, p, err := net.SplitHostPort(hostPort)
	require.NoError(t, err, hostPort)
	n, err := strconv.Atoi(p)
	require.NoError(t, err, hostPort)
	return int32(n)
}

// TestKubernetesProviderManifestsHoldTogether: docs/cluster/k8s runs
// engine workers with the Kubernetes provider.
func TestKubernetesProviderManifestsHoldTogether(t *testing.T) {
	files, err := filepath.Glob("../../docs/cluster/k8s/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	ms := readManifests(t, files...)
	require.Len(t, ms.statefulSets, 1)
	sts := ms.statefulSets[0]
	pod := sts.Spec.Template.Spec
	require.Len(t, pod.Containers, 1)
	c := pod.Containers[0]
	args := engineArgs(t, c)
	require.Equal(t, "worker", args[0])
	checkCommandLine(t, args)
	assert.Equal(t, "k8s", flagValue(args, "provider"))
	listen := flagValue(args, "listen")
	assert.Contains(t, containerPorts(c), portOf(t, listen), "the remote port the provider advertises is a container port")
	assert.True(t, strings.HasPrefix(listen, podIP+":"), "the remote listens on the pod's IP, which the provider advertises: %s", listen)

	// The pods' labels are the selector's; the headless service selects
	// them too.
	for k, v := range sts.Spec.Selector.MatchLabels {
		assert.Equal(t, v, sts.Spec.Template.Labels[k])
	}
	require.Len(t, ms.services, 1)
	assert.Equal(t, sts.Spec.ServiceName, ms.services[0].Name)
	assert.Equal(t, sts.Spec.Selector.MatchLabels, ms.services[0].Spec.Selector)

	// The server table: a ConfigMap mounted where --config points, that
	// the engine reads.
	config := flagValue(args, "config")
	require.NotEmpty(t, config)
	var mounted *corev1.ConfigMap
	for _, vm := range c.VolumeMounts {
		if vm.MountPath != path.Dir(config) {
			continue
		}
		for _, v := range pod.Volumes {
			if v.Name == vm.Name && v.ConfigMap != nil {
				for i := range ms.configMaps {
					if ms.configMaps[i].Name == v.ConfigMap.Name {
						mounted = &ms.configMaps[i]
					}
				}
			}
		}
	}
	require.NotNil(t, mounted, "no ConfigMap of these files is mounted at %s", path.Dir(config))
	table, ok := mounted.Data[path.Base(config)]
	require.True(t, ok, "ConfigMap %s has no %s", mounted.Name, path.Base(config))
	cf, err := mcpengine.ParseConfig([]byte(table))
	require.NoError(t, err)
	assert.NotEmpty(t, cf.Servers)

	// protoactor's provider reads and labels its own pod and watches
	// its cluster's pods: the pod's service account may do that.
	require.Len(t, ms.serviceAccounts, 1)
	assert.Equal(t, ms.serviceAccounts[0].Name, pod.ServiceAccountName)
	require.Len(t, ms.roleBindings, 1)
	rb := ms.roleBindings[0]
	assert.Contains(t, rb.Subjects, rbacv1.Subject{Kind: "ServiceAccount", Name: pod.ServiceAccountName})
	require.Len(t, ms.roles, 1)
	assert.Equal(t, rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: ms.roles[0].Name}, rb.RoleRef)
	granted := map[string]bool{}
	for _, r := range ms.roles[0].Rules {
		if slices.Contains(r.APIGroups, "") && slices.Contains(r.Resources, "pods") {
			for _, v := range r.Verbs {
				granted[v] = true
			}
		}
	}
	for _, v := range []string{"get", "list", "watch", "patch"} {
		assert.True(t, granted[v], "the role does not grant %s on pods", v)
	}
}

// TestKubernetesLoadManifestHoldsTogether: docs/load-cluster/k8s.yaml
// runs three automanaged workers and a coordinator Job.
func TestKubernetesLoadManifestHoldsTogether(t *testing.T) {
	ms := readManifests(t, "../../docs/load-cluster/k8s.yaml")
	require.Len(t, ms.statefulSets, 1)
	require.Len(t, ms.jobs, 1)
	require.Len(t, ms.services, 1)
	sts, svc := ms.statefulSets[0], ms.services[0]
	assert.Equal(t, sts.Spec.ServiceName, svc.Name)
	assert.Equal(t, sts.Spec.Selector.MatchLabels, svc.Spec.Selector)
	assert.True(t, svc.Spec.PublishNotReadyAddresses, "members must find each other before they are ready")

	w := sts.Spec.Template.Spec.Containers[0]
	wargs := engineArgs(t, w)
	require.Equal(t, "worker", wargs[0])
	checkCommandLine(t, wargs)
	listen := flagValue(wargs, "listen")
	assert.Contains(t, containerPorts(w), portOf(t, listen))
	remote, err := strconv.Atoi(flagValue(wargs, "remote-port"))
	require.NoError(t, err)
	assert.Contains(t, containerPorts(w), int32(remote))

	// --join names every pod of the StatefulSet by its stable DNS name
	// and the membership port.
	require.NotNil(t, sts.Spec.Replicas)
	var want []string
	for i := range int(*sts.Spec.Replicas) {
		want = append(want, fmt.Sprintf("%s-%d.%s:%d", sts.Name, i, svc.Name, portOf(t, listen)))
	}
	assert.Equal(t, strings.Join(want, ","), flagValue(wargs, "join"))

	job := ms.jobs[0]
	assert.Equal(t, corev1.RestartPolicyNever, job.Spec.Template.Spec.RestartPolicy)
	cargs := engineArgs(t, job.Spec.Template.Spec.Containers[0])
	require.Equal(t, "load", cargs[0])
	checkCommandLine(t, cargs)
	assert.Equal(t, flagValue(wargs, "join"), flagValue(cargs, "join"), "the coordinator joins the same members")
}
