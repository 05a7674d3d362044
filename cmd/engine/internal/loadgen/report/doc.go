// Package report renders what a load run measured (a loadgen.Result) in
// each format `engine load -O` offers: text for people, JSON for tools and
// `engine load compare`, CSV, the Prometheus text format, and one
// self-contained HTML page; and compares two JSON reports.
package report
