"""The law as values: the terms of Ley 928/1927 and the Prefectura's practice (`legal_terms.toml`), the semestral
cycle's deadlines and fines (arts. 211, 222, 225), the fee scales (arts. 199, 209, 233, `fee_scales.toml`) and the
arqueo formula (art. 195). Pure: values in, values out; `today` is always a parameter.
"""
