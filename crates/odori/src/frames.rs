//! Frame list syntax: `0,30,60`, `a:b:step` (b included), or a mix separated by commas.

use anyhow::{Context, Result, bail};

pub fn parse(spec: &str) -> Result<Vec<f32>> {
    let mut out = Vec::new();
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let nums: Vec<&str> = part.split(':').collect();
        let num = |s: &str| -> Result<f32> {
            let v: f32 = s
                .trim()
                .parse()
                .with_context(|| format!("bad frame number `{s}` in `{spec}`"))?;
            if !v.is_finite() {
                bail!("bad frame number `{s}`");
            }
            Ok(v)
        };
        match nums.as_slice() {
            [one] => out.push(num(one)?),
            [a, b] | [a, b, _] => {
                let (a, b) = (num(a)?, num(b)?);
                let step = if nums.len() == 3 { num(nums[2])? } else { 1.0 };
                if step <= 0.0 {
                    bail!("frame step must be positive in `{part}`");
                }
                let count = ((b - a) / step).floor();
                if count > 10_000_000.0 {
                    bail!("`{part}` asks for more than ten million frames");
                }
                let mut i = 0.0;
                while i <= count {
                    out.push(a + i * step);
                    i += 1.0;
                }
            }
            _ => bail!("bad frame range `{part}`: use a, a:b or a:b:step"),
        }
    }
    if out.is_empty() {
        bail!("no frames in `{spec}`");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn lists_and_ranges() {
        assert_eq!(super::parse("0,30,60").unwrap(), vec![0.0, 30.0, 60.0]);
        assert_eq!(
            super::parse("0:90:30").unwrap(),
            vec![0.0, 30.0, 60.0, 90.0]
        );
        assert_eq!(super::parse("1.5").unwrap(), vec![1.5]);
        assert!(super::parse("0:10:0").is_err());
        assert!(super::parse("x").is_err());
    }
}
