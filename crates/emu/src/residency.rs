//! Where a dispatch's work-groups run: which emulated compute unit each one occupies (a
//! queue's CU mask), and how many a host thread keeps resident (all of them for a cooperative
//! dispatch, whose work-groups may wait on one another at grid barriers).

use crate::error::Fault;

/// Most waves one emulated CU holds (GFX9's 10 per SIMD × 4); a cooperative dispatch must fit
/// on the GPU's CUs at once.
const MAX_WAVES_PER_CU: u64 = 40;

/// The CU of work-group `n`: round-robin over the dispatch's CUs (`enabled`, or all `cus`).
pub(crate) fn cu_of(enabled: &[u32], cus: u32, n: u64) -> u32 {
    if enabled.is_empty() {
        (n % u64::from(cus.max(1))) as u32
    } else {
        enabled[(n % enabled.len() as u64) as usize]
    }
}

/// How many work-groups one host thread keeps resident: `normal`, or for a cooperative
/// dispatch every work-group (any one thread may have to hold them all when the others are
/// busy). A cooperative grid larger than the CUs could hold is refused.
pub(crate) fn resident_limit(
    cooperative: bool,
    normal: usize,
    total_wgs: u64,
    waves_per_wg: u32,
    enabled: &[u32],
    cus: u32,
) -> Result<usize, Fault> {
    if !cooperative {
        return Ok(normal);
    }
    let cus = if enabled.is_empty() {
        cus
    } else {
        enabled.len() as u32
    };
    let waves = total_wgs * u64::from(waves_per_wg);
    let room = u64::from(cus) * MAX_WAVES_PER_CU;
    if waves > room {
        return Err(Fault::invalid_dispatch(format!(
            "cooperative dispatch of {total_wgs} work-groups ({waves} waves) cannot be resident at once on {cus} compute units ({room} waves)"
        )));
    }
    Ok((total_wgs as usize).max(normal))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_groups_spread_over_the_enabled_cus() {
        let cus: Vec<u32> = (0..6).map(|n| cu_of(&[1, 3], 4, n)).collect();
        assert_eq!(cus, [1, 3, 1, 3, 1, 3]);
        let cus: Vec<u32> = (0..5).map(|n| cu_of(&[], 4, n)).collect();
        assert_eq!(cus, [0, 1, 2, 3, 0]);
    }

    #[test]
    fn cooperative_grids_are_resident_or_refused() {
        assert_eq!(resident_limit(false, 4, 1000, 4, &[], 4), Ok(4));
        assert_eq!(resident_limit(true, 4, 40, 4, &[], 4), Ok(40));
        assert_eq!(resident_limit(true, 4, 2, 1, &[], 4), Ok(4));
        assert!(resident_limit(true, 4, 41, 4, &[], 4).is_err());
        assert!(resident_limit(true, 4, 21, 4, &[0, 1], 4).is_err());
    }
}
