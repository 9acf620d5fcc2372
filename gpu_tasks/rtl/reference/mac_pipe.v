// Pipelined multiply-accumulate: operands are registered at edge k, their product at k+1, and
// the accumulator adds it at k+2. clear and in_valid travel beside the data so each acts on the
// product of its own edge.
module mac_pipe #(parameter W = 8) (
    input  wire                  clk,
    input  wire                  rst_n,
    input  wire                  in_valid,
    input  wire                  clear,
    input  wire signed [W-1:0]   a,
    input  wire signed [W-1:0]   b,
    output wire                  out_valid,
    output wire signed [2*W+7:0] acc
);
    localparam AW = 2 * W + 8;

    reg                  v1, c1, v2, c2, ov;
    reg signed [W-1:0]   a1, b1;
    reg signed [2*W-1:0] p2;
    reg signed [AW-1:0]  sum;

    wire signed [2*W-1:0] prod = a1 * b1;
    // Explicit sign extension: the product must stay signed however the sum is written.
    wire signed [AW-1:0]  addend = {{8{p2[2*W-1]}}, p2};

    assign out_valid = ov;
    assign acc       = sum;

    always @(posedge clk) begin
        a1 <= a;
        b1 <= b;
        if (!rst_n) begin
            v1  <= 1'b0;
            c1  <= 1'b0;
            v2  <= 1'b0;
            c2  <= 1'b0;
            p2  <= {2*W{1'b0}};
            ov  <= 1'b0;
            sum <= {AW{1'b0}};
        end else begin
            v1 <= in_valid;
            c1 <= clear;
            v2 <= v1;
            c2 <= c1;
            // An invalid slot adds nothing.
            if (v1) p2 <= prod;
            else    p2 <= {2*W{1'b0}};
            ov <= v2;
            if (c2) sum <= addend;
            else    sum <= sum + addend;
        end
    end
endmodule
