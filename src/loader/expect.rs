//! Reading `[expect]`: each key against the metrics its model reports, with positions and
//! suggestions like every other key.

use crate::expect::metric::{Bound, ExpectSchema, Expectation, Metric, NEVER, Unit};
use crate::scenario::error::ScenarioError;
use crate::scenario::located::Located;
use crate::scenario::schema::{ExpectEntry, ExpectTable};
use crate::scenario::values::parse_duration_ns;

/// Validates an `[expect]` table against `schema`, keeping the file's order.
pub(crate) fn parse_expectations(
    file: &Located<'_>,
    table: &ExpectTable,
    schema: ExpectSchema<'_>,
) -> Result<Vec<Expectation>, ScenarioError> {
    let mut entries: Vec<_> = table.iter().collect();
    entries.sort_by_key(|(key, _)| key.span().start);
    let mut expectations = Vec::new();
    for (key, value) in entries {
        if key.get_ref() == "invariants" {
            expectations.extend(parse_invariants(file, key, value, schema.metrics)?);
            continue;
        }
        match value.get_ref() {
            ExpectEntry::Group(group_table) => {
                expectations.extend(parse_group(file, key, group_table, &schema)?);
            }
            ExpectEntry::Value(raw) => expectations.push(parse_one(
                file,
                key.get_ref(),
                key.span(),
                raw,
                value.span(),
                None,
                (schema.metrics, schema.elsewhere),
            )?),
        }
    }
    Ok(expectations)
}

/// `invariants = true`: the model's invariants must all hold, that is no violations at all.
fn parse_invariants(
    file: &Located<'_>,
    key: &toml::Spanned<String>,
    value: &toml::Spanned<ExpectEntry>,
    metrics: &[Metric],
) -> Result<Option<Expectation>, ScenarioError> {
    let ExpectEntry::Value(toml::Value::Boolean(wanted)) = value.get_ref() else {
        return Err(file
            .error(value.span(), "`invariants` takes true or false")
            .with_hint("write invariants = true to require the model's invariants to hold"));
    };
    let metric = metrics
        .iter()
        .find(|metric| metric.name == crate::invariant::VIOLATIONS.name)
        .expect("every model reports its invariant violations");
    Ok(wanted.then(|| Expectation {
        key: key.get_ref().clone(),
        group: None,
        metric: *metric,
        bound: Bound::Exactly,
        value: 0,
    }))
}

/// A sub-table such as `[expect.flush]`, in the file's order.
fn parse_group(
    file: &Located<'_>,
    key: &toml::Spanned<String>,
    table: &std::collections::BTreeMap<toml::Spanned<String>, toml::Spanned<toml::Value>>,
    schema: &ExpectSchema<'_>,
) -> Result<Vec<Expectation>, ScenarioError> {
    let group = key.get_ref();
    let noun = schema.group_noun;
    if !schema.groups.contains(&group.as_str()) {
        let hint = if schema.groups.is_empty() {
            "this model has no named parts; its expectations are plain keys such as max_<metric> = 3"
                .to_string()
        } else {
            let names = &schema.groups;
            match crate::scenario::nearest(group, names) {
                Some(best) => format!("did you mean `{best}`? The {noun}s: {}", names.join(", ")),
                None => format!("the {noun}s: {}", names.join(", ")),
            }
        };
        return Err(file
            .error(key.span(), format!("`{group}` in [expect] is not a {noun}"))
            .with_hint(hint));
    }
    let mut entries: Vec<_> = table.iter().collect();
    entries.sort_by_key(|(name, _)| name.span().start);
    entries
        .into_iter()
        .map(|(name, raw)| {
            parse_one(
                file,
                name.get_ref(),
                name.span(),
                raw.get_ref(),
                raw.span(),
                Some(group),
                (schema.group_metrics, &[]),
            )
        })
        .collect()
}

/// The metric whose name has the same words as `name` in another order, such as `p99_lateness`
/// for `lateness_p99`.
fn same_words<'a>(name: &str, names: &[&'a str]) -> Option<&'a str> {
    let words = |text: &str| {
        let mut words: Vec<String> = text.split('_').map(str::to_string).collect();
        words.sort();
        words
    };
    let wanted = words(name);
    names
        .iter()
        .copied()
        .find(|candidate| words(candidate) == wanted)
}

fn parse_one(
    file: &Located<'_>,
    written: &str,
    key_span: std::ops::Range<usize>,
    value: &toml::Value,
    value_span: std::ops::Range<usize>,
    group: Option<&str>,
    (metrics, elsewhere): (&[Metric], &[(&'static str, &'static str)]),
) -> Result<Expectation, ScenarioError> {
    let (bound, name) = match (written.strip_prefix("max_"), written.strip_prefix("min_")) {
        (Some(name), _) => (Bound::AtMost, name),
        (_, Some(name)) => (Bound::AtLeast, name),
        _ => (Bound::Exactly, written),
    };
    let Some(metric) = metrics.iter().find(|metric| metric.name == name) else {
        return Err(unknown_metric(
            file,
            written,
            name,
            key_span,
            group,
            (metrics, elsewhere),
        ));
    };
    let parsed = bound_value(metric, written, value);
    let value =
        parsed.map_err(|(message, hint)| file.error(value_span, message).with_hint(hint))?;
    Ok(Expectation {
        key: written.to_string(),
        group: group.map(str::to_string),
        metric: *metric,
        bound,
        value,
    })
}

/// An expectation key that names no metric of the model, with the likeliest one meant.
fn unknown_metric(
    file: &Located<'_>,
    written: &str,
    name: &str,
    key_span: std::ops::Range<usize>,
    group: Option<&str>,
    (metrics, elsewhere): (&[Metric], &[(&'static str, &'static str)]),
) -> ScenarioError {
    let table = match group {
        Some(group) => format!("[expect.{group}]"),
        None => "[expect]".to_string(),
    };
    // The metric's name decides the suggestion, not the bound's prefix, which every
    // `max_...` key shares.
    let names: Vec<&str> = metrics.iter().map(|metric| metric.name).collect();
    let owner = elsewhere.iter().find(|(metric, _)| *metric == name);
    let hint = match same_words(name, &names).or_else(|| crate::scenario::nearest(name, &names)) {
        _ if owner.is_some() => format!(
            "`{name}` is reported by the {} design, not by this scenario's.",
            owner.map_or("", |(_, design)| design)
        ),
        Some(best) => {
            let prefix = &written[..written.len() - name.len()];
            format!("did you mean `{prefix}{best}`?")
        }
        None => format!(
            "no metric is called `{name}`; expectations are max_<metric>, min_<metric> or \
             <metric> for an exact value."
        ),
    };
    let names: Vec<_> = metrics.iter().map(|m| m.name).collect();
    let whose = if group.is_some() {
        "each named part"
    } else {
        "this model"
    };
    file.error(key_span, format!("unknown key `{written}` in {table}"))
        .with_hint(format!("{hint} Metrics of {whose}: {}", names.join(", ")))
}

/// The bound's value in the metric's unit, or a message and hint for a value of the wrong kind.
fn bound_value(
    metric: &Metric,
    written: &str,
    value: &toml::Value,
) -> Result<u64, (String, String)> {
    let example = match metric.unit {
        Unit::Count => format!("for example {written} = 3"),
        Unit::Duration => format!("for example {written} = \"500ms\""),
        Unit::Time => format!(
            "for example {written} = \"500ms\", or \"never\" for a moment that must not come"
        ),
    };
    match (metric.unit, value) {
        (Unit::Count, toml::Value::Integer(n)) if *n >= 0 => Ok(*n as u64),
        // What the summary prints for a moment that never came, and what bounds it.
        (Unit::Time, toml::Value::String(text)) if text == "never" => Ok(NEVER),
        (Unit::Count, _) => Err((
            format!("`{written}` takes a whole number of zero or more"),
            example,
        )),
        (Unit::Duration | Unit::Time, toml::Value::String(text)) => match parse_duration_ns(text) {
            Ok(ns) if ns >= 0 => Ok(ns as u64),
            Ok(_) => Err((
                format!("`{written}` takes a duration of zero or more"),
                example,
            )),
            Err(problem) => Err((problem.message, problem.hint)),
        },
        (Unit::Duration | Unit::Time, _) => Err((format!("`{written}` takes a duration"), example)),
    }
}

#[cfg(test)]
mod tests {
    use crate::expect::metric::NEVER;

    #[test]
    fn a_moment_takes_never_where_a_duration_does_not() {
        let scenario = |expect: &str| {
            super::super::parse(
                "a.toml",
                &format!(
                    "about = \"a\"\nplatform = \"linux\"\nrun_for = \"10s\"\n[model]\nkind = \
                     \"interval\"\nmissed_tick = \"burst\"\nperiod = \"1s\"\n[expect]\n{expect}\n"
                ),
            )
        };
        let never = scenario("first_tick_at = \"never\"\nmax_last_tick_at = \"never\"").unwrap();
        let values: Vec<u64> = never.expectations.iter().map(|e| e.value).collect();
        assert_eq!(values, [NEVER, NEVER]);
        assert_eq!(never.expectations[0].to_string(), "first_tick_at == never");
        let error = scenario("max_lateness = \"never\"")
            .unwrap_err()
            .to_string();
        assert!(!error.contains("\"never\" for a moment"), "{error}");
    }
}
