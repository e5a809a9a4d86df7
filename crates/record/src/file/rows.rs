//! The rows of the file form (schema 3 on): each list element as an array with a fixed order per type, read from rows or objects alike.

use super::*;

/// A throughput: `0` when it is derived from the median ([`crate::precision::derived_throughput`]),
/// else as stated: median, CI low, CI high, standard deviation.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ThroughputCell {
    Derived,
    Stated(ThroughputRow),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub(crate) struct ThroughputRow(f64, Option<f64>, Option<f64>, Option<f64>);

impl Serialize for ThroughputCell {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ThroughputCell::Derived => s.serialize_u8(0),
            ThroughputCell::Stated(r) => r.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for ThroughputCell {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ThroughputCell, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ThroughputCell;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("0 (derived from the median) or [median, ci_low, ci_high, stddev]")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<ThroughputCell, E> {
                match v {
                    0 => Ok(ThroughputCell::Derived),
                    _ => Err(E::custom(format_args!(
                        "throughput {v}: 0 (derived) or a row"
                    ))),
                }
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<ThroughputCell, A::Error> {
                ThroughputRow::deserialize(de::value::SeqAccessDeserializer::new(seq))
                    .map(ThroughputCell::Stated)
            }
        }
        d.deserialize_any(V)
    }
}

/// median, ci_low, ci_high, samples, iters_per_sample, mad, min, p90, outliers, preempted,
/// retaken (ns, counts).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub(crate) struct StatsRow(
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<u64>,
    Option<u64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<u64>,
    Option<u64>,
    Option<u64>,
);

/// vs, median, ci_low, ci_high, samples, pct, pct_ci_low, pct_ci_high.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub(crate) struct OverheadRow<'a>(
    Cow<'a, str>,
    f64,
    Option<f64>,
    Option<f64>,
    u64,
    f64,
    Option<f64>,
    Option<f64>,
);

/// what, expected, observed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub(crate) struct VerificationRow<'a>(Text<'a>, u64, u64);

/// id, family, description, status, reason, stats, overhead, throughput, verification, params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub(crate) struct ResultRow<'a>(
    Cow<'a, str>,
    Text<'a>,
    Text<'a>,
    Status,
    Option<Text<'a>>,
    Option<StatsRow>,
    Option<OverheadRow<'a>>,
    Option<ThroughputCell>,
    Option<VerificationRow<'a>>,
    Option<Params<'a>>,
);

/// id, label, formula, median, ci_low, ci_high, samples, origin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub(crate) struct EstimateRow<'a>(
    Cow<'a, str>,
    Text<'a>,
    Text<'a>,
    f64,
    Option<f64>,
    Option<f64>,
    u64,
    Option<EstimateOrigin>,
);

/// id, label, relation, lhs, rhs, diff median, diff ci_low, diff ci_high, tolerance,
/// systematic, verdict, kernel verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub(crate) struct ExpectationRow<'a>(
    Cow<'a, str>,
    Text<'a>,
    Relation,
    f64,
    f64,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    f64,
    Option<f64>,
    Verdict,
    Verdict,
);

/// quantity, id, median, half-width, target, met, group (schema 4: `0` when it is the id).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub(crate) struct TargetRow<'a>(
    QuantityKind,
    Cow<'a, str>,
    f64,
    Option<f64>,
    f64,
    bool,
    Name<'a>,
);

/// id, members (schema 4: `0` for the group's own id), rounds, duration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub(crate) struct GroupRow<'a>(Cow<'a, str>, Vec<Name<'a>>, u64, f64);

impl<'a> ResultRow<'a> {
    pub(super) fn of(r: &'a ScenarioResult, form: u32) -> ResultRow<'a> {
        let stats = StatsRow(
            r.median_ns,
            r.ci_low_ns,
            r.ci_high_ns,
            r.samples,
            r.iters_per_sample,
            r.mad_ns,
            r.min_ns,
            r.p90_ns,
            r.outliers,
            r.preempted,
            r.retaken,
        );
        let empty = StatsRow(
            None, None, None, None, None, None, None, None, None, None, None,
        );
        let throughput = r.throughput_mops.as_ref().map(|t| {
            if crate::precision::derived_throughput(r.median_ns, r.ci_low_ns, r.ci_high_ns).as_ref()
                == Some(t)
            {
                ThroughputCell::Derived
            } else {
                ThroughputCell::Stated(ThroughputRow(t.median, t.ci_low, t.ci_high, t.stddev))
            }
        });
        ResultRow(
            Cow::Borrowed(&r.id),
            Text::of(&r.family, form),
            Text::of(&r.description, form),
            r.status,
            r.reason.as_deref().map(|t| Text::of(t, form)),
            (stats != empty).then_some(stats),
            r.overhead.as_ref().map(|o| {
                OverheadRow(
                    Cow::Borrowed(&o.vs),
                    o.median_ns,
                    o.ci_low_ns,
                    o.ci_high_ns,
                    o.samples,
                    o.pct,
                    o.pct_ci_low,
                    o.pct_ci_high,
                )
            }),
            throughput,
            r.verification
                .as_ref()
                .map(|v| VerificationRow(Text::of(&v.what, form), v.expected, v.observed)),
            Params::of(&r.params, form),
        )
    }

    pub(super) fn into_model(self) -> Result<ScenarioResult, RowError> {
        let ResultRow(id, family, description, status, reason, stats, ov, tp, ver, params) = self;
        let mut r = ScenarioResult::new(&id, &family.resolve()?, &description.resolve()?, status);
        r.reason = reason.map(Text::resolve).transpose()?;
        if let Some(StatsRow(m, lo, hi, n, it, mad, min, p90, out, pre, ret)) = stats {
            (r.median_ns, r.ci_low_ns, r.ci_high_ns) = (m, lo, hi);
            (r.samples, r.iters_per_sample) = (n, it);
            (r.mad_ns, r.min_ns, r.p90_ns) = (mad, min, p90);
            (r.outliers, r.preempted, r.retaken) = (out, pre, ret);
        }
        r.overhead = ov.map(|OverheadRow(vs, m, lo, hi, n, p, plo, phi)| Overhead {
            vs: vs.into_owned(),
            median_ns: m,
            ci_low_ns: lo,
            ci_high_ns: hi,
            samples: n,
            pct: p,
            pct_ci_low: plo,
            pct_ci_high: phi,
        });
        r.throughput_mops = match tp {
            None => None,
            Some(ThroughputCell::Stated(ThroughputRow(m, lo, hi, sd))) => Some(Throughput {
                median: m,
                ci_low: lo,
                ci_high: hi,
                stddev: sd,
            }),
            Some(ThroughputCell::Derived) => Some(
                crate::precision::derived_throughput(r.median_ns, r.ci_low_ns, r.ci_high_ns)
                    .ok_or_else(|| RowError::DerivedThroughput(id.to_string()))?,
            ),
        };
        r.verification = ver
            .map(|VerificationRow(what, expected, observed)| {
                Ok::<_, RowError>(Verification {
                    what: what.resolve()?,
                    expected,
                    observed,
                })
            })
            .transpose()?;
        r.params = params.map(Params::resolve).transpose()?.unwrap_or_default();
        Ok(r)
    }
}

impl<'a> EstimateRow<'a> {
    pub(super) fn of(e: &'a Estimate, form: u32) -> EstimateRow<'a> {
        EstimateRow(
            Cow::Borrowed(&e.id),
            Text::of(&e.label, form),
            Text::of(&e.formula, form),
            e.median_ns,
            e.ci_low_ns,
            e.ci_high_ns,
            e.samples,
            e.origin,
        )
    }
    pub(super) fn into_model(self) -> Result<Estimate, RowError> {
        let EstimateRow(id, label, formula, m, lo, hi, samples, origin) = self;
        Ok(Estimate {
            id: id.into_owned(),
            label: label.resolve()?,
            formula: formula.resolve()?,
            median_ns: m,
            ci_low_ns: lo,
            ci_high_ns: hi,
            samples,
            origin,
        })
    }
}

impl<'a> ExpectationRow<'a> {
    pub(super) fn of(e: &'a Expectation, form: u32) -> ExpectationRow<'a> {
        ExpectationRow(
            Cow::Borrowed(&e.id),
            Text::of(&e.label, form),
            e.relation,
            e.lhs_ns,
            e.rhs_ns,
            e.diff_median_ns,
            e.diff_ci_low_ns,
            e.diff_ci_high_ns,
            e.tolerance_ns,
            e.systematic_ns,
            e.verdict,
            e.kernel_verdict,
        )
    }
    pub(super) fn into_model(self) -> Result<Expectation, RowError> {
        let ExpectationRow(id, label, relation, lhs, rhs, dm, dlo, dhi, tol, sys, v, kv) = self;
        Ok(Expectation {
            id: id.into_owned(),
            label: label.resolve()?,
            relation,
            lhs_ns: lhs,
            rhs_ns: rhs,
            diff_median_ns: dm,
            diff_ci_low_ns: dlo,
            diff_ci_high_ns: dhi,
            tolerance_ns: tol,
            systematic_ns: sys,
            verdict: v,
            kernel_verdict: kv,
        })
    }
}

impl<'a> TargetRow<'a> {
    pub(super) fn of(t: &'a Target, form: u32) -> TargetRow<'a> {
        TargetRow(
            t.quantity,
            Cow::Borrowed(&t.id),
            t.median_ns,
            t.half_width_ns,
            t.target_ns,
            t.met,
            Name::of(&t.group, &t.id, form),
        )
    }
    pub(super) fn into_model(self) -> Result<Target, RowError> {
        let TargetRow(quantity, id, median_ns, half_width_ns, target_ns, met, group) = self;
        Ok(Target {
            quantity,
            group: group.resolve(&id),
            id: id.into_owned(),
            median_ns,
            half_width_ns,
            target_ns,
            met,
        })
    }
}

impl<'a> GroupRow<'a> {
    pub(super) fn of(g: &'a GroupSummary, form: u32) -> GroupRow<'a> {
        let members = g.members.iter().map(|m| Name::of(m, &g.id, form));
        GroupRow(
            Cow::Borrowed(&g.id),
            members.collect(),
            g.rounds,
            g.duration_s,
        )
    }
    pub(super) fn into_model(self) -> Result<GroupSummary, RowError> {
        let GroupRow(id, members, rounds, duration_s) = self;
        Ok(GroupSummary {
            members: members.into_iter().map(|m| m.resolve(&id)).collect(),
            id: id.into_owned(),
            rounds,
            duration_s,
        })
    }
}

/// An element of a list: a row (schema 3) or an object (schemas 1 and 2).
pub(super) enum Cell<R, O> {
    Row(R),
    Object(O),
}

impl<'de, R: Deserialize<'de>, O: Deserialize<'de>> Deserialize<'de> for Cell<R, O> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<R, O>(std::marker::PhantomData<(R, O)>);
        impl<'de, R: Deserialize<'de>, O: Deserialize<'de>> Visitor<'de> for V<R, O> {
            type Value = Cell<R, O>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a row (array) or an object")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                R::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(Cell::Row)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                O::deserialize(de::value::MapAccessDeserializer::new(map)).map(Cell::Object)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// Why a row of the file form cannot become its record type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum RowError {
    UnknownText(u32),
    UnknownParams(u32),
    DerivedThroughput(String),
}

impl std::fmt::Display for RowError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RowError::UnknownText(i) => write!(f, "text {i} is not in the dictionary"),
            RowError::UnknownParams(i) => {
                write!(f, "parameters {i} are not in the dictionary")
            }
            RowError::DerivedThroughput(id) => {
                write!(
                    f,
                    "result {id}: a derived throughput needs a positive median"
                )
            }
        }
    }
}

/// Reads a list whose elements are rows or objects, naming the element a bad row is at.
pub(super) fn list<'de, D, R, O>(
    d: D,
    what: &str,
    conv: impl Fn(R) -> Result<O, RowError>,
) -> Result<Vec<O>, D::Error>
where
    D: Deserializer<'de>,
    R: Deserialize<'de>,
    O: Deserialize<'de>,
{
    let cells = Vec::<Cell<R, O>>::deserialize(d)?;
    cells
        .into_iter()
        .enumerate()
        .map(|(i, c)| match c {
            Cell::Row(r) => {
                conv(r).map_err(|e| <D::Error as de::Error>::custom(format!("{what}[{i}]: {e}")))
            }
            Cell::Object(o) => Ok(o),
        })
        .collect()
}

pub(crate) fn results<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<ScenarioResult>, D::Error> {
    list(d, "results", ResultRow::into_model)
}
pub(crate) fn estimates<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Estimate>, D::Error> {
    list(d, "estimates", EstimateRow::into_model)
}
pub(crate) fn expectations<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Expectation>, D::Error> {
    list(d, "expectations", ExpectationRow::into_model)
}
pub(crate) fn targets<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Target>, D::Error> {
    list(d, "summary.targets", TargetRow::into_model)
}
pub(crate) fn groups<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<GroupSummary>, D::Error> {
    list(d, "summary.groups", GroupRow::into_model)
}
