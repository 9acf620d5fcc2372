"""Hardware-design tasks: a candidate's Verilog module, built into a simulation model with
Verilator (verilator_build.py), driven cycle by cycle (driver.py) against the task's checker."""
