// Package compose runs the development stack of deploy/compose.yaml for
// real: Debian's dockerd, the Compose v2 plugin, images built from the
// repository's Dockerfiles (scripts/deps.sh test makes each of these when
// missing; a missing one fails the tests, it never skips them).
//
// The tests use their own Compose project name (project) and free
// loopback ports, so they never touch a stack a developer runs; they take
// it down with its volumes at the end, and keep the images, so a later run
// reuses every layer whose input did not change.
package compose
