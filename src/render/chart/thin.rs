//! Thinning: a series with more points than its panel has pixel columns is drawn from the
//! lowest and the highest point of every column, in time order, instead of from every point.
//! An hour of one-second intervals (3,600 points) on a 1,000-pixel panel becomes at most
//! 2,000 points, and a one-second spike still reaches its height: averaging or taking every
//! n-th point would flatten exactly the stalls an admin is looking for. Gaps (NaN values)
//! survive thinning. Pure arithmetic; the drawing says in the footnote when it thinned.

/// `points` (x ascending) thinned to at most two per pixel column of a panel `columns` wide
/// spanning `x_min..=x_max`; returned unchanged when they already fit.
pub fn min_max_per_column(
    points: &[(f64, f64)],
    x_min: f64,
    x_max: f64,
    columns: usize,
) -> Vec<(f64, f64)> {
    if points.len() <= 2 * columns || columns == 0 || x_max <= x_min {
        return points.to_vec();
    }
    let column = |x: f64| {
        let c = ((x - x_min) / (x_max - x_min) * columns as f64).floor();
        c.clamp(0.0, (columns - 1) as f64) as usize
    };
    let mut out = Vec::with_capacity(2 * columns + 8);
    let mut i = 0;
    while i < points.len() {
        let c = column(points[i].0);
        let mut j = i;
        while j < points.len() && column(points[j].0) == c {
            j += 1;
        }
        flush(&points[i..j], &mut out);
        i = j;
    }
    out
}

/// The lowest and highest point of one column, in x order; a gap inside it is kept as one
/// NaN point between the parts before and after it.
fn flush(col: &[(f64, f64)], out: &mut Vec<(f64, f64)>) {
    let mut start = 0;
    for (k, p) in col.iter().enumerate() {
        if p.1.is_nan() {
            extremes(&col[start..k], out);
            if !out.last().is_some_and(|q: &(f64, f64)| q.1.is_nan()) {
                out.push(*p);
            }
            start = k + 1;
        }
    }
    extremes(&col[start..], out);
}

fn extremes(part: &[(f64, f64)], out: &mut Vec<(f64, f64)>) {
    let (Some(lo), Some(hi)) = (
        part.iter().min_by(|a, b| a.1.total_cmp(&b.1)),
        part.iter().max_by(|a, b| a.1.total_cmp(&b.1)),
    ) else {
        return;
    };
    match (lo.0 < hi.0, lo == hi) {
        (_, true) => out.push(*lo),
        (true, false) => out.extend([*lo, *hi]),
        (false, false) => out.extend([*hi, *lo]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_hour_fits_two_points_per_column_and_keeps_its_spike() {
        let mut pts: Vec<(f64, f64)> = (1..=3600).map(|t| (t as f64, 1000.0)).collect();
        pts[1800].1 = 50_000.0; // a one-second stall's p99
        pts[2400].1 = 10.0; // a one-second dip
        let thin = min_max_per_column(&pts, 0.0, 3600.0, 1000);
        assert!(thin.len() <= 2000, "{}", thin.len());
        assert!(thin.contains(&(1801.0, 50_000.0)));
        assert!(thin.contains(&(2401.0, 10.0)));
        assert!(thin.windows(2).all(|w| w[0].0 < w[1].0), "x order kept");
    }

    #[test]
    fn few_points_and_gaps_are_kept() {
        let pts = vec![(1.0, 2.0), (2.0, f64::NAN), (3.0, 4.0)];
        let bits = |v: &[(f64, f64)]| {
            v.iter()
                .map(|p| (p.0.to_bits(), p.1.to_bits()))
                .collect::<Vec<_>>()
        };
        assert_eq!(bits(&min_max_per_column(&pts, 0.0, 3.0, 100)), bits(&pts));
        let mut many: Vec<(f64, f64)> = (0..1000).map(|t| (t as f64, 1.0)).collect();
        many[500].1 = f64::NAN;
        let thin = min_max_per_column(&many, 0.0, 1000.0, 10);
        assert_eq!(thin.iter().filter(|p| p.1.is_nan()).count(), 1);
        assert!(thin.len() <= 2 * 10 + 3);
    }
}
