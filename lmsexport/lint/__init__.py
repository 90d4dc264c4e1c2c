"""`lmsexport lint`: item-writing rules from the assessment literature, run over the bank."""
