package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/mcpengine/mcpengine/messages"
)

// The skills extension (SEP-2640, io.modelcontextprotocol/skills): a
// server lists skills with skills/list, each an entry naming its SKILL.md
// and supporting files by URI with their digest and size, and the
// frontmatter the SKILL.md must carry. A host reads a skill's files only
// when it loads the skill, verifies each read against its entry and uses
// nothing that fails.
const methodSkillsList = "skills/list"

type skillEntry struct {
	URI         string         `json:"uri"`
	Frontmatter map[string]any `json:"frontmatter"`
	Resources   []skillFile    `json:"resources"`
}

type skillFile struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"` // "sha256:<hex>"
	Size   *int64 `json:"size"`
}

// listSkills asks for the skills and reads none of their files.
func listSkills(ctx context.Context, r *conformanceRun) error {
	raw, err := r.s.Call(ctx, methodSkillsList, map[string]any{})
	if err != nil {
		return fmt.Errorf("%s: %w", methodSkillsList, err)
	}
	var res struct {
		Skills []skillEntry `json:"skills"`
	}
	if err := messages.Unmarshal(raw, &res); err != nil {
		return fmt.Errorf("%s: the answer is not a list of skills: %w", methodSkillsList, err)
	}
	r.skills = res.Skills
	for _, sk := range res.Skills {
		fmt.Fprintf(r.out, "skill %s (%v): %d files\n", sk.URI, sk.Frontmatter["name"], len(sk.Resources))
	}
	return nil
}

// loadSkills loads every listed skill: SKILL.md first, verified against
// its entry (size, digest, then its frontmatter field by field), and only
// then its other files, each verified. A skill that fails is not used:
// the step fails before reading anything more of it.
func loadSkills(ctx context.Context, r *conformanceRun) error {
	for _, sk := range r.skills {
		body, err := r.readSkillFile(ctx, sk, sk.URI)
		if err != nil {
			return err
		}
		if err := checkFrontmatter(body, sk.Frontmatter); err != nil {
			return fmt.Errorf("skill %s not loaded: %w", sk.URI, err)
		}
		for _, f := range sk.Resources {
			if f.URI == sk.URI {
				continue
			}
			if _, err := r.readSkillFile(ctx, sk, f.URI); err != nil {
				return err
			}
		}
		fmt.Fprintf(r.out, "skill %s loaded and verified\n", sk.URI)
	}
	return nil
}

// readSkillFile reads one file of a skill and verifies it against the
// entry that lists it.
func (r *conformanceRun) readSkillFile(ctx context.Context, sk skillEntry, uri string) ([]byte, error) {
	var entry *skillFile
	for i := range sk.Resources {
		if sk.Resources[i].URI == uri {
			entry = &sk.Resources[i]
		}
	}
	if entry == nil {
		return nil, fmt.Errorf("skill %s does not list %s among its files: nothing to verify it against", sk.URI, uri)
	}
	res, err := r.s.ReadResource(ctx, uri)
	if err != nil {
		return nil, fmt.Errorf("resources/read %s: %w", uri, err)
	}
	if len(res.Contents) != 1 {
		return nil, fmt.Errorf("resources/read %s: %d contents, a skill file is one", uri, len(res.Contents))
	}
	data := []byte(res.Contents[0].Text)
	if res.Contents[0].IsBlob() {
		if data, err = base64.StdEncoding.DecodeString(res.Contents[0].Blob); err != nil {
			return nil, fmt.Errorf("resources/read %s: blob: %w", uri, err)
		}
	}
	if entry.Size != nil && int64(len(data)) != *entry.Size {
		return nil, fmt.Errorf("skill %s not loaded: %s is %d bytes, its entry says %d", sk.URI, uri, len(data), *entry.Size)
	}
	algo, want, ok := strings.Cut(entry.Digest, ":")
	if !ok || algo != "sha256" {
		return nil, fmt.Errorf("skill %s not loaded: %s has digest %q, not sha256:<hex>", sk.URI, uri, entry.Digest)
	}
	if sum := sha256.Sum256(data); !strings.EqualFold(hex.EncodeToString(sum[:]), want) {
		return nil, fmt.Errorf("skill %s not loaded: %s does not match its digest", sk.URI, uri)
	}
	return data, nil
}

// checkFrontmatter compares a SKILL.md's frontmatter (between the first
// two --- lines; flat key: value pairs) with the entry's, both ways.
func checkFrontmatter(body []byte, want map[string]any) error {
	got, err := parseFrontmatter(string(body))
	if err != nil {
		return err
	}
	for k, v := range want {
		g, ok := got[k]
		if !ok {
			return fmt.Errorf("frontmatter: %s is missing from SKILL.md", k)
		}
		if g != fmt.Sprint(v) {
			return fmt.Errorf("frontmatter: %s is %q in SKILL.md, %q in the entry", k, g, fmt.Sprint(v))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			return fmt.Errorf("frontmatter: SKILL.md has %s, which the entry does not", k)
		}
	}
	return nil
}

func parseFrontmatter(body string) (map[string]string, error) {
	lines := strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != "---" {
		return nil, fmt.Errorf("frontmatter: SKILL.md does not start with ---")
	}
	fm := map[string]string{}
	for _, line := range lines[1:] {
		if strings.TrimSpace(line) == "---" {
			return fm, nil
		}
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, " ") || strings.HasPrefix(line, "#") {
			continue // nested values are not compared
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("frontmatter: line %q is not key: value", line)
		}
		fm[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"'`)
	}
	return nil, fmt.Errorf("frontmatter: no closing ---")
}
