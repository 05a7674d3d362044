package loadgen

// mergeFlows adds a member's flows to res's, by name (every member runs
// the same workload): iterations and their classes are summed, the
// iterations' histograms merged, the steps merged as request kinds. The
// rates are set by Merge once the run's duration is known.
func mergeFlows(res, r *Result) error {
	for _, q := range r.Flows {
		i := -1
		for j := range res.Flows {
			if res.Flows[j].Name == q.Name {
				i = j
			}
		}
		if i < 0 {
			res.Flows = append(res.Flows, FlowResult{Name: q.Name, Weight: q.Weight, HDR: &HDRDump{}})
			i = len(res.Flows) - 1
		}
		f := &res.Flows[i]
		f.Iterations += q.Iterations
		f.OK += q.OK
		f.Failed += q.Failed
		f.Aborted += q.Aborted
		f.ErrorRate = ratio(f.Failed, f.Iterations)
		f.Errors = f.Errors.Plus(q.Errors)
		for k, v := range q.FirstErrors {
			if f.FirstErrors == nil {
				f.FirstErrors = map[string]string{}
			}
			if f.FirstErrors[k] == "" {
				f.FirstErrors[k] = v
			}
		}
		if err := mergeKinds(&f.Steps, q.Steps); err != nil {
			return err
		}
		if q.HDR == nil || f.HDR == nil {
			// A member without the iterations' histogram: the flow's
			// percentiles cannot be merged, so it shows counts only.
			f.HDR, f.Latency = nil, Latency{}
			continue
		}
		h, err := DecodeHDR(f.HDR.Latency)
		if err != nil {
			return err
		}
		add, err := DecodeHDR(q.HDR.Latency)
		if err != nil {
			return err
		}
		h.Merge(add)
		f.HDR.Latency = encodeHDR(h)
		f.Latency = Summarize(h)
	}
	return nil
}
